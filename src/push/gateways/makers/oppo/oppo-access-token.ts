import type { Clock } from '../../../../core/clock.ts';
import { AuthorizationError } from '../../authorization-source.ts';
import { loggable } from '../../delivery-reasons.ts';
import { authEndpointUnanswered, type AccessGrant, type AccessTokenFetch } from '../maker-access-token.ts';
import type { MakerHttp } from '../maker-http.ts';
import type { OppoProfile } from './oppo-credentials.ts';
import { oppoSign } from './oppo-sign.ts';

/**
 * How long Herald uses an OPPO auth_token. OPPO's live 24 hours; half of
 * that leaves a day's token good for the rest of its use even if OPPO hands
 * back the one it issued earlier that day.
 */
export const oppoTokenLifeMs = 12 * 3_600_000;

/** Codes of the auth endpoint that asking again later may cure: unavailable, flow control, call limits. */
const passingCodes: ReadonlySet<number> = new Set([-1, -2, 13, 55]);

/**
 * OPPO's auth: a form of `app_key`, `timestamp` (milliseconds, within ten
 * minutes of OPPO's clock) and `sign` (`oppoSign`) posted to the auth
 * endpoint, answered `{code: 0, data: {auth_token, create_time}}`. The token
 * goes in the form of every send. A refusal (a code such as 14 invalid app
 * key, 16 invalid signature, 19 invalid timestamp, 26 IP black list, 28 app
 * disabled, or a 4xx) is `AccessTokenRefused`; no answer, a 5xx and codes
 * -1, -2, 13, 55 are `AccessTokenUnavailable`, retried.
 */
export function oppoAccessToken(http: MakerHttp, clock: Clock, profile: Pick<OppoProfile, 'authUrl' | 'appKey' | 'masterSecret'>): AccessTokenFetch {
  const url = profile.authUrl;
  const endpoint = `${url.origin}${url.pathname}`;
  return async (): Promise<AccessGrant> => {
    const timestamp = String(clock.now());
    const form = new URLSearchParams({ app_key: profile.appKey, timestamp, sign: oppoSign(profile.appKey, timestamp, profile.masterSecret) }).toString();
    const answer = await http.post({ url, headers: { 'content-type': 'application/x-www-form-urlencoded;charset=UTF-8' }, body: form, observed: false });
    if (answer.failure !== undefined) {
      throw authEndpointUnanswered(endpoint, answer.failure);
    }
    let parsed: { code?: unknown; data?: { auth_token?: unknown } } = {};
    try {
      parsed = JSON.parse(answer.body.toString('utf8')) as typeof parsed;
    } catch {
      // Judged by its status below.
    }
    const code = typeof parsed === 'object' && parsed !== null ? Number(parsed.code) : Number.NaN;
    const token = parsed?.data?.auth_token;
    if (answer.status === 200 && code === 0 && typeof token === 'string' && token !== '') return { value: token, expiresInMs: oppoTokenLifeMs };
    const retryable = answer.status >= 500 || answer.status === 429 || (answer.status === 200 && (passingCodes.has(code) || Number.isNaN(code) || code === 0));
    const excerpt = loggable(answer.body.toString('utf8').replace(/\s+/g, ' ').trim());
    throw new AuthorizationError(retryable ? 'AccessTokenUnavailable' : 'AccessTokenRefused', `auth endpoint ${endpoint} answered ${answer.status}: ${excerpt}`, { retryable });
  };
}
