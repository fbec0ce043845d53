import type { Clock } from '../../../../core/clock.ts';
import { AuthorizationError } from '../../authorization-source.ts';
import { loggable } from '../../delivery-reasons.ts';
import { authEndpointUnanswered, type AccessGrant, type AccessTokenFetch } from '../maker-access-token.ts';
import type { MakerHttp } from '../maker-http.ts';
import type { VivoProfile } from './vivo-credentials.ts';
import { vivoSign } from './vivo-sign.ts';

/**
 * How long Herald uses a vivo authToken. vivo's live a day, and vivo asks
 * callers to cache one and fetch the next every one to two hours.
 */
export const vivoTokenLifeMs = 3_600_000;

/** The auth endpoint's codes for credentials it refuses: an empty or unknown App ID or AppKey, a wrong sign, a timestamp off its clock. */
const refusingCodes: ReadonlySet<number> = new Set([10200, 10201, 10202, 10203, 10204, 10205, 10206, 10207]);

/**
 * vivo's auth: `{appId, appKey, timestamp, sign}` as JSON (the timestamp in
 * milliseconds, within ten minutes of vivo's clock; `sign` from `vivoSign`)
 * posted to the auth endpoint, answered `{result: 0, authToken}`. The token
 * goes in the `authToken` header of every send. A refusal (10200-10207, or a
 * 4xx) is `AccessTokenRefused`; no answer, a 5xx and any other code (the
 * endpoint's rate limit among them) `AccessTokenUnavailable`, retried.
 */
export function vivoAccessToken(http: MakerHttp, clock: Clock, profile: Pick<VivoProfile, 'authUrl' | 'appId' | 'appKey' | 'appSecret'>): AccessTokenFetch {
  const url = profile.authUrl;
  const endpoint = `${url.origin}${url.pathname}`;
  return async (): Promise<AccessGrant> => {
    const timestamp = clock.now();
    const body = JSON.stringify({
      appId: Number(profile.appId),
      appKey: profile.appKey,
      timestamp,
      sign: vivoSign(profile.appId, profile.appKey, String(timestamp), profile.appSecret),
    });
    const answer = await http.post({ url, headers: { 'content-type': 'application/json;charset=utf-8' }, body, observed: false });
    if (answer.failure !== undefined) {
      throw authEndpointUnanswered(endpoint, answer.failure);
    }
    let parsed: { result?: unknown; authToken?: unknown } = {};
    try {
      const value: unknown = JSON.parse(answer.body.toString('utf8'));
      if (typeof value === 'object' && value !== null) parsed = value;
    } catch {
      // Judged by its status below.
    }
    const result = parsed.result === undefined ? Number.NaN : Number(parsed.result);
    const token = parsed.authToken;
    if (answer.status === 200 && result === 0 && typeof token === 'string' && token !== '') return { value: token, expiresInMs: vivoTokenLifeMs };
    const refused = answer.status === 200 ? refusingCodes.has(result) : answer.status >= 400 && answer.status < 500 && answer.status !== 429;
    const excerpt = loggable(answer.body.toString('utf8').replace(/\s+/g, ' ').trim());
    throw new AuthorizationError(refused ? 'AccessTokenRefused' : 'AccessTokenUnavailable', `auth endpoint ${endpoint} answered ${answer.status}: ${excerpt}`, { retryable: !refused });
  };
}
