import { AuthorizationError } from '../../authorization-source.ts';
import { loggable } from '../../delivery-reasons.ts';
import type { AccessGrant, AccessTokenFetch } from '../maker-access-token.ts';
import type { MakerHttp } from '../maker-http.ts';
import type { HmsProfile } from './hms-credentials.ts';

/**
 * HMS's OAuth 2.0 client-credentials grant: a form of `grant_type`,
 * `client_id` and `client_secret` posted to the token endpoint, answered
 * `{access_token, expires_in, token_type}` (an hour). A refusal (4xx, HMS's
 * `{error, error_description}`) is `AccessTokenRefused`; no answer, 429 or
 * 5xx `AccessTokenUnavailable`, retried.
 */
export function hmsAccessToken(http: MakerHttp, profile: Pick<HmsProfile, 'authUrl' | 'clientId' | 'clientSecret'>): AccessTokenFetch {
  const url = profile.authUrl;
  const endpoint = `${url.origin}${url.pathname}`;
  const form = new URLSearchParams({ grant_type: 'client_credentials', client_id: profile.clientId, client_secret: profile.clientSecret }).toString();
  return async (): Promise<AccessGrant> => {
    const answer = await http.post({ url, headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: form, observed: false });
    if (answer.failure !== undefined) {
      throw new AuthorizationError('AccessTokenUnavailable', `auth endpoint ${endpoint} gave no answer (${answer.failure.reason})`, { retryable: answer.failure.retryable });
    }
    let parsed: { access_token?: unknown; expires_in?: unknown } = {};
    try {
      parsed = JSON.parse(answer.body.toString('utf8')) as typeof parsed;
    } catch {
      // Judged by its status below.
    }
    if (answer.status === 200 && typeof parsed.access_token === 'string' && parsed.access_token !== '' && typeof parsed.expires_in === 'number' && parsed.expires_in > 0) {
      return { value: `Bearer ${parsed.access_token}`, expiresInMs: parsed.expires_in * 1000 };
    }
    const retryable = answer.status === 200 || answer.status === 429 || answer.status >= 500;
    const excerpt = loggable(answer.body.toString('utf8').replace(/\s+/g, ' ').trim());
    throw new AuthorizationError(retryable ? 'AccessTokenUnavailable' : 'AccessTokenRefused', `auth endpoint ${endpoint} answered ${answer.status}: ${excerpt}`, { retryable });
  };
}
