import { AuthorizationError } from '../../authorization-source.ts';
import { loggable } from '../../delivery-reasons.ts';
import { authEndpointUnanswered, type AccessGrant, type AccessTokenFetch } from '../maker-access-token.ts';
import type { MakerHttp } from '../maker-http.ts';

/** What an OAuth 2.0 client-credentials grant needs: the token endpoint and the client. */
export interface ClientCredentials {
  authUrl: URL;
  clientId: string;
  clientSecret: string;
}

/**
 * The OAuth 2.0 client-credentials grant of the makers that use one (HMS,
 * Honor): a form of `grant_type`, `client_id` and `client_secret` posted to
 * the token endpoint, answered `{access_token, expires_in, token_type}`; the
 * sends carry `Authorization: Bearer <access_token>`. A refusal (a 4xx, the
 * endpoint's `{error, error_description}`) is `AccessTokenRefused`; no
 * answer, 429, 5xx or a 200 without a token `AccessTokenUnavailable`, retried.
 */
export function clientCredentialsToken(http: MakerHttp, credentials: ClientCredentials): AccessTokenFetch {
  const url = credentials.authUrl;
  const endpoint = `${url.origin}${url.pathname}`;
  const form = new URLSearchParams({ grant_type: 'client_credentials', client_id: credentials.clientId, client_secret: credentials.clientSecret }).toString();
  return async (): Promise<AccessGrant> => {
    const answer = await http.post({ url, headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: form, observed: false });
    if (answer.failure !== undefined) {
      throw authEndpointUnanswered(endpoint, answer.failure);
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
