import { request } from 'node:https';
import { SignJWT } from 'jose';
import type { Clock } from '../../core/clock.ts';
import type { Logger } from '../../core/logger.ts';
import { errorCause } from '../../http2/h2-failure.ts';
import { AuthorizationError, type AuthorizationSource } from './authorization-source.ts';
import { loggable } from './delivery-reasons.ts';
import type { FcmServiceAccount } from './fcm-service-account.ts';
import { LogThrottle } from './log-throttle.ts';

export const fcmScope = 'https://www.googleapis.com/auth/firebase.messaging';
const jwtBearerGrant = 'urn:ietf:params:oauth:grant-type:jwt-bearer';

/** Posts a form to the token endpoint; injectable so tests can count or break calls. */
export type TokenEndpointCall = (url: string, form: string) => Promise<{ status: number; body: string }>;

/** Most bytes of a token endpoint's answer read; Google's is about 1 KiB. A longer one is refused. */
export const maxTokenAnswerBytes = 64 * 1024;

/** Why the token endpoint gave no usable answer, as a log line says it. */
export class TokenEndpointError extends Error {
  readonly why: 'timeout' | 'too-large';

  constructor(why: 'timeout' | 'too-large', message: string) {
    super(message);
    this.name = 'TokenEndpointError';
    this.why = why;
  }
}

export interface FcmAccessTokenOptions {
  account: FcmServiceAccount;
  clock: Clock;
  /** PEM CAs for the token endpoint, as for the gateway; verification stays on. */
  ca?: string | Buffer;
  /** Longest wait for the token endpoint's whole answer: connection, headers and body; default 10 s. */
  requestTimeoutMs?: number;
  /**
   * After a failed refresh, callers get the same error for this long instead
   * of a new call, doubled after each further failure up to `maxFailureHoldMs`;
   * default 1 s.
   */
  failureHoldMs?: number;
  /** Longest hold after failures in a row; default 30 s. */
  maxFailureHoldMs?: number;
  /** Failed refreshes are logged at warn, one line a minute at most per kind of failure. */
  logger?: Logger;
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
  /** Failed refreshes since the last success: the hold doubles with each. */
  #failures = 0;
  #requests = 0;
  readonly #logThrottle: LogThrottle;

  constructor(options: FcmAccessTokenOptions) {
    this.#options = options;
    this.#post = options.post ?? httpsPost(options.ca, options.requestTimeoutMs ?? 10_000);
    this.#logThrottle = new LogThrottle({ intervalMs: 60_000, clock: options.clock });
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
        // What the system said, its code first when the message lacks it (a TLS verification error's).
        const why = error instanceof TokenEndpointError ? error.message : `unreachable: ${errorCause(error)}`;
        throw new AuthorizationError('AccessTokenUnavailable', `token endpoint ${account.tokenUri} ${why}`, { retryable: true, cause: error });
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
      this.#failures = 0;
      return this.#value;
    } catch (error) {
      const failure =
        error instanceof AuthorizationError
          ? error
          : new AuthorizationError('AccessTokenUnavailable', `cannot get an FCM access token for ${account.clientEmail}`, { retryable: false, cause: error });
      this.#failures += 1;
      const holdMs = Math.min(this.#options.maxFailureHoldMs ?? 30_000, (this.#options.failureHoldMs ?? 1000) * 2 ** (this.#failures - 1));
      this.#failure = { error: failure, until: clock.now() + holdMs };
      this.#logFailure(failure, holdMs);
      throw failure;
    }
  }

  /** One warn line per kind of failure and minute, saying why and when the endpoint is asked again. */
  #logFailure(failure: AuthorizationError, holdMs: number): void {
    const logger = this.#options.logger;
    if (logger === undefined) return;
    const heldBack = this.#logThrottle.admit(failureKind(failure));
    if (heldBack === undefined) return;
    logger.warn(
      { reason: failure.reason, why: failure.message, failuresInARow: this.#failures, nextTryInMs: holdMs, heldBack },
      'cannot get an FCM access token: deliveries to FCM wait and are retried',
    );
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
  // 4xx (invalid_grant: a wrong or revoked key, a skewed clock) will not heal by asking again soon.
  const retryable = answer.status === 200 || answer.status === 429 || answer.status >= 500;
  const excerpt = loggable(answer.body.replace(/\s+/g, ' ').trim());
  throw new AuthorizationError(retryable ? 'AccessTokenUnavailable' : 'AccessTokenRefused', `token endpoint ${tokenUri} answered ${answer.status}: ${excerpt}`, { retryable });
}

/** What a failed refresh is throttled by: the same kind of failure again within a minute makes no new line. */
function failureKind(failure: AuthorizationError): string {
  const cause = failure.cause;
  if (cause instanceof TokenEndpointError) return cause.why;
  return `${failure.reason} ${/ answered (\d+)/.exec(failure.message)?.[1] ?? 'unreachable'}`;
}

/**
 * The default token endpoint call: HTTPS with the configured CAs, certificate
 * verification on. The whole answer (connection, headers, body) must come
 * within `timeoutMs` and hold at most `maxTokenAnswerBytes`: a peer that
 * trickles or streams without end is cut off, not waited for or buffered.
 */
function httpsPost(ca: string | Buffer | undefined, timeoutMs: number): TokenEndpointCall {
  return (url, form) =>
    new Promise((resolve, reject) => {
      const req = request(url, {
        method: 'POST',
        ...(ca === undefined ? {} : { ca }),
        headers: { 'content-type': 'application/x-www-form-urlencoded', 'content-length': Buffer.byteLength(form) },
      });
      const fail = (error: Error): void => {
        clearTimeout(deadline);
        req.destroy();
        reject(error);
      };
      const deadline = setTimeout(() => fail(new TokenEndpointError('timeout', `gave no whole answer within ${timeoutMs} ms`)), timeoutMs);
      req.on('response', (res) => {
        const chunks: Buffer[] = [];
        let size = 0;
        res.on('data', (chunk: Buffer) => {
          size += chunk.length;
          if (size > maxTokenAnswerBytes) return fail(new TokenEndpointError('too-large', `answered more than ${maxTokenAnswerBytes} bytes`));
          chunks.push(chunk);
        });
        res.on('end', () => {
          clearTimeout(deadline);
          resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') });
        });
        res.on('error', fail);
        res.on('close', () => fail(new Error('connection closed before the answer ended')));
      });
      req.on('error', fail);
      req.end(form);
    });
}
