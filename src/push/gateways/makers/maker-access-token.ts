import type { Clock } from '../../../core/clock.ts';
import type { Logger } from '../../../core/logger.ts';
import { AuthorizationError, type AuthorizationSource } from '../authorization-source.ts';
import type { MakerName } from '../delivery.ts';
import { LogThrottle } from '../log-throttle.ts';
import type { TransportFailure } from '../transport-failure.ts';

/** What a maker's auth endpoint granted: the value the send requests carry, and how long it lives. */
export interface AccessGrant {
  value: string;
  expiresInMs: number;
}

/**
 * Asks a maker's auth endpoint for a new token. Rejects with an
 * `AuthorizationError`: `AccessTokenUnavailable` (retryable) when the endpoint
 * did not answer usefully, `AccessTokenRefused` when it refused the
 * credentials (asking again soon will not help).
 */
export type AccessTokenFetch = () => Promise<AccessGrant>;

/**
 * What an `AccessTokenFetch` throws when the auth endpoint gave no answer:
 * `AccessTokenUnavailable`, retried as the transport says, its message
 * naming the endpoint and what the connection met (`connect ECONNREFUSED …`,
 * a TLS verification error), which the sender's warn lines carry.
 */
export function authEndpointUnanswered(endpoint: string, failure: TransportFailure): AuthorizationError {
  const said = failure.cause === undefined ? failure.reason : `${failure.reason}: ${failure.cause}`;
  return new AuthorizationError('AccessTokenUnavailable', `auth endpoint ${endpoint} gave no answer (${said})`, { retryable: failure.retryable });
}

export interface MakerAccessTokenOptions {
  gateway: MakerName;
  /** The profile, for log lines. */
  profile: string;
  fetch: AccessTokenFetch;
  clock: Clock;
  logger?: Logger;
  /** After a failed fetch, callers get the same error this long, doubled per further failure; default 1 s. */
  failureHoldMs?: number;
  /** Longest hold after failures in a row; default 30 s. */
  maxFailureHoldMs?: number;
  /** Shortest time between refreshes forced by `reject`; default 60 s. */
  minForcedRefreshMs?: number;
}

/**
 * The access token of one maker profile (HMS and Honor OAuth, OPPO and vivo
 * signed auth): one fetch at a time for every caller; a new token fetched in
 * the background a tenth of its life (at most 5 minutes) before it expires,
 * while the old one serves; fetched again when the maker answers that it
 * expired (`reject`), but not more than once a minute for a token that was
 * itself just fetched that way. A failed fetch answers every caller with its
 * error for 1 s, doubled per failure in a row up to 30 s, and is logged at
 * warn, one line a minute per kind, as the FCM access token is.
 */
export class MakerAccessToken implements AuthorizationSource {
  readonly #options: MakerAccessTokenOptions;
  readonly #logThrottle: LogThrottle;
  #value: string | undefined;
  #obtainedAt = 0;
  #refreshAt = 0;
  #usableUntil = 0;
  #stale = false;
  #forced = false;
  #refreshing: Promise<string> | undefined;
  #failure: { error: AuthorizationError; until: number } | undefined;
  #failures = 0;
  #requests = 0;

  constructor(options: MakerAccessTokenOptions) {
    this.#options = options;
    this.#logThrottle = new LogThrottle({ intervalMs: 60_000, clock: options.clock });
  }

  /** Fetches made so far. */
  get requests(): number {
    return this.#requests;
  }

  authorization(): string | undefined {
    if (this.#value === undefined || this.#stale) return undefined;
    const now = this.#options.clock.now();
    if (now >= this.#usableUntil) return undefined;
    if (now >= this.#refreshAt && this.#refreshing === undefined && !this.#holdingFailure(now)) this.#startRefresh().catch(() => {});
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
    if (this.#forced && this.#options.clock.now() - this.#obtainedAt < (this.#options.minForcedRefreshMs ?? 60_000)) return false;
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
    const { clock } = this.#options;
    const forced = this.#stale;
    try {
      this.#requests += 1;
      const grant = await this.#options.fetch();
      const now = clock.now();
      const life = grant.expiresInMs;
      this.#value = grant.value;
      this.#obtainedAt = now;
      this.#refreshAt = now + life - Math.min(300_000, life / 10);
      this.#usableUntil = now + life - Math.min(30_000, life / 20);
      this.#stale = false;
      this.#forced = forced;
      this.#failure = undefined;
      this.#failures = 0;
      return grant.value;
    } catch (error) {
      const failure =
        error instanceof AuthorizationError
          ? error
          : new AuthorizationError('AccessTokenUnavailable', `cannot get a ${this.#options.gateway} access token`, { retryable: true, cause: error });
      this.#failures += 1;
      const holdMs = Math.min(this.#options.maxFailureHoldMs ?? 30_000, (this.#options.failureHoldMs ?? 1000) * 2 ** (this.#failures - 1));
      this.#failure = { error: failure, until: clock.now() + holdMs };
      this.#log(failure, holdMs);
      throw failure;
    }
  }

  #log(failure: AuthorizationError, holdMs: number): void {
    const { logger, gateway, profile } = this.#options;
    if (logger === undefined) return;
    // One line a minute per kind: the reason and the status the endpoint answered (the fetches say ` answered <status>`).
    const heldBack = this.#logThrottle.admit(`${failure.reason} ${/ answered (\d+)/.exec(failure.message)?.[1] ?? 'no answer'}`);
    if (heldBack === undefined) return;
    logger.warn(
      { gateway, profile, reason: failure.reason, why: failure.message, failuresInARow: this.#failures, nextTryInMs: holdMs, heldBack },
      `cannot get a ${gateway} access token: deliveries through this profile wait and are retried`,
    );
  }
}
