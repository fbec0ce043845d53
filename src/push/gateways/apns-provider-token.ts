import type { KeyObject } from 'node:crypto';
import { SignJWT } from 'jose';
import type { Clock } from '../../core/clock.ts';
import { AuthorizationError, type AuthorizationSource } from './authorization-source.ts';

export interface ApnsProviderTokenOptions {
  /** The ES256 key of the `.p8` file. */
  key: KeyObject;
  keyId: string;
  teamId: string;
  /** Age after which a new token is signed; APNs wants 20 to 60 minutes. */
  refreshAfterMs: number;
  clock: Clock;
  /** Shortest time between refreshes forced by `reject`; default 60 s. */
  minForcedRefreshMs?: number;
}

/**
 * The APNs provider token (`authorization: bearer <ES256 JWT>`, `kid` the key
 * id, `iss` the team id): one token for every request until it is
 * `refreshAfterMs` old. APNs refuses tokens older than an hour and answers
 * TooManyProviderTokenUpdates to refreshes more often than every 20 minutes,
 * so a token is signed only on age or when APNs rejected the current one.
 */
export class ApnsProviderToken implements AuthorizationSource {
  readonly #options: ApnsProviderTokenOptions;
  readonly #minForcedRefreshMs: number;
  #value: string | undefined;
  #issuedAt = 0;
  #stale = false;
  #forced = false;
  #refreshing: Promise<string> | undefined;

  constructor(options: ApnsProviderTokenOptions) {
    this.#options = options;
    this.#minForcedRefreshMs = options.minForcedRefreshMs ?? 60_000;
  }

  authorization(): string | undefined {
    if (this.#value === undefined || this.#stale) return undefined;
    return this.#options.clock.now() - this.#issuedAt < this.#options.refreshAfterMs ? this.#value : undefined;
  }

  refresh(): Promise<string> {
    const current = this.authorization();
    if (current !== undefined) return Promise.resolve(current);
    this.#refreshing ??= this.#sign().finally(() => (this.#refreshing = undefined));
    return this.#refreshing;
  }

  reject(authorization: string): boolean {
    if (authorization !== this.#value) return true;
    if (this.#forced && this.#options.clock.now() - this.#issuedAt < this.#minForcedRefreshMs) return false;
    this.#stale = true;
    return true;
  }

  async #sign(): Promise<string> {
    const { key, keyId, teamId, clock } = this.#options;
    const now = clock.now();
    let jwt: string;
    try {
      jwt = await new SignJWT({})
        .setProtectedHeader({ alg: 'ES256', kid: keyId })
        .setIssuer(teamId)
        .setIssuedAt(Math.floor(now / 1000))
        .sign(key);
    } catch (error) {
      throw new AuthorizationError('ProviderTokenUnavailable', `cannot sign the APNs provider token of key ${keyId}`, { retryable: false, cause: error });
    }
    this.#forced = this.#stale;
    this.#stale = false;
    this.#value = `bearer ${jwt}`;
    this.#issuedAt = now;
    return this.#value;
  }
}
