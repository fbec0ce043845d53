import { request } from 'node:https';
import { SignJWT } from 'jose';
import type { Clock } from '../../core/clock.ts';
import { AuthorizationError, type AuthorizationSource } from './authorization-source.ts';
import type { FcmServiceAccount } from './fcm-service-account.ts';

export const fcmScope = 'https://www.googleapis.com/auth/firebase.messaging';
const jwtBearerGrant = 'urn:ietf:params:oauth:grant-type:jwt-bearer';

/** Posts a form to the token endpoint; injectable so tests can count or break calls. */
export type TokenEndpointCall = (url: string, form: string) => Promise<{ status: number; body: string }>;

export interface FcmAccessTokenOptions {
  account: FcmServiceAccount;
  clock: Clock;
  /** PEM CAs for the token endpoint, as for the gateway; verification stays on. */
  ca?: string | Buffer;
  /** Longest wait for the token endpoint; default 10 s. */
  requestTimeoutMs?: number;
  /** After a failed refresh, callers get the same error for this long instead of a new call; default 1 s. */
  failureHoldMs?: number;
  /** Shortest time between refreshes forced by `reject`; default 60 s. */
  minForcedRefreshMs?: number;
  post?: TokenEndpointCall;
}

/**
 * The OAuth2 access token of an FCM client, from a service account by the
 * JWT-bearer grant (RS256 assertion, scope firebase.messaging). One refresh at
 * a time. A tenth of its life before it expires (at most 5 minutes) a new
 * token is fetched in the background while the old one keeps serving, so
 * sends wait for the token endpoint only when there is no usable token at all
 * (the first send, or after a refresh failed until the old token's last 30 s).
 */
export class FcmAccessToken implements AuthorizationSource {
  readonly #options: FcmAccessTokenOptions;
  readonly #post: TokenEndpointCall;
  #value: string | undefined;
  #obtainedAt = 0;
  /** When a background refresh starts. */
  #refreshAt = 0;
  /** When the token stops being used (a little before Google's expiry, for clock skew and time in flight). */
  #usableUntil = 0;
  #stale = false;
  #forced = false;
  #refreshing: Promise<string> | undefined;
  #failure: { error: AuthorizationError; until: number } | undefined;
  #requests = 0;

  constructor(options: FcmAccessTokenOptions) {
    this.#options = options;
    this.#post = options.post ?? httpsPost(options.ca, options.requestTimeoutMs ?? 10_000);
  }

  /** Calls made to the token endpoint so far. */
  get requests(): number {
    return this.#requests;
  }

  authorization(): string | undefined {
    if (this.#value === undefined || this.#stale) return undefined;
    const now = this.#options.clock.now();
    if (now >= this.#usableUntil) return undefined;
    if (now >= this.#refreshAt && this.#refreshing === undefined && !this.#holdingFailure(now)) {
      // A failure is kept in #failure and met by the sends once the token is no longer usable.
      this.#startRefresh().catch(() => {});
    }
    return this.#value;
  }

  refresh(): Promise<string> {
    const current = this.authorization();
    if (current !== undefined) return Promise.resolve(current);
    if (this.#refreshing !== undefined) return this.#refreshing;
    const failure = this.#failure;
    if (failure !== undefined && this.#holdingFailure(this.#options.clock.now())) return Promise.reject(failure.error);
    return this.#startRefresh();
  }

  reject(authorization: string): boolean {
    if (authorization !== this.#value) return true;
    const now = this.#options.clock.now();
    if (this.#forced && now - this.#obtainedAt < (this.#options.minForcedRefreshMs ?? 60_000)) return false;
    this.#stale = true;
    return true;
  }

  #holdingFailure(now: number): boolean {
    return this.#failure !== undefined && now < this.#failure.until;
  }

  #startRefresh(): Promise<string> {
    this.#refreshing ??= this.#fetch().finally(() => (this.#refreshing = undefined));
    return this.#refreshing;
  }

  async #fetch(): Promise<string> {
    const { account, clock } = this.#options;
    const forced = this.#stale;
    try {
      const assertion = await this.#assertion();
      const form = new URLSearchParams({ grant_type: jwtBearerGrant, assertion }).toString();
      this.#requests++;
      const answer = await this.#post(account.tokenUri, form).catch((error: unknown) => {
        throw new AuthorizationError('AccessTokenUnavailable', `token endpoint ${account.tokenUri} unreachable`, { retryable: true, cause: error });
      });
      const { token, expiresInMs } = readTokenAnswer(answer, account.tokenUri);
      const now = clock.now();
      this.#value = `Bearer ${token}`;
      this.#obtainedAt = now;
      this.#refreshAt = now + expiresInMs - Math.min(300_000, expiresInMs / 10);
      this.#usableUntil = now + expiresInMs - Math.min(30_000, expiresInMs / 20);
      this.#stale = false;
      this.#forced = forced;
      this.#failure = undefined;
      return this.#value;
    } catch (error) {
      const failure =
        error instanceof AuthorizationError
          ? error
          : new AuthorizationError('AccessTokenUnavailable', `cannot get an FCM access token for ${account.clientEmail}`, { retryable: false, cause: error });
      this.#failure = { error: failure, until: clock.now() + (this.#options.failureHoldMs ?? 1000) };
      throw failure;
    }
  }

  #assertion(): Promise<string> {
    const { account, clock } = this.#options;
    const issuedAt = Math.floor(clock.now() / 1000);
    const header = account.privateKeyId === undefined ? { alg: 'RS256', typ: 'JWT' } : { alg: 'RS256', typ: 'JWT', kid: account.privateKeyId };
    return new SignJWT({ scope: fcmScope })
      .setProtectedHeader(header)
      .setIssuer(account.clientEmail)
      .setAudience(account.tokenUri)
      .setIssuedAt(issuedAt)
      .setExpirationTime(issuedAt + 3600)
      .sign(account.privateKey);
  }
}

function readTokenAnswer(answer: { status: number; body: string }, tokenUri: string): { token: string; expiresInMs: number } {
  let parsed: { access_token?: unknown; expires_in?: unknown; error?: unknown } = {};
  try {
    parsed = JSON.parse(answer.body) as typeof parsed;
  } catch {
    // Judged by status below.
  }
  if (answer.status === 200 && typeof parsed.access_token === 'string' && typeof parsed.expires_in === 'number' && parsed.expires_in > 0) {
    return { token: parsed.access_token, expiresInMs: parsed.expires_in * 1000 };
  }
  const oauthError = typeof parsed.error === 'string' ? parsed.error : `HTTP ${answer.status}`;
  // 4xx (invalid_grant: a wrong or revoked key, a skewed clock) will not heal by asking again soon.
  const retryable = answer.status === 200 || answer.status === 429 || answer.status >= 500;
  throw new AuthorizationError(retryable ? 'AccessTokenUnavailable' : 'AccessTokenRefused', `token endpoint ${tokenUri} answered ${oauthError}`, { retryable });
}

/** The default token endpoint call: HTTPS with the configured CAs, certificate verification on. */
function httpsPost(ca: string | Buffer | undefined, timeoutMs: number): TokenEndpointCall {
  return (url, form) =>
    new Promise((resolve, reject) => {
      const req = request(
        url,
        {
          method: 'POST',
          ...(ca === undefined ? {} : { ca }),
          headers: { 'content-type': 'application/x-www-form-urlencoded', 'content-length': Buffer.byteLength(form) },
          timeout: timeoutMs,
        },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (chunk: Buffer) => chunks.push(chunk));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }));
          res.on('error', reject);
        },
      );
      req.on('timeout', () => req.destroy(new Error(`no answer within ${timeoutMs} ms`)));
      req.on('error', reject);
      req.end(form);
    });
}
