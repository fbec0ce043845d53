import { randomUUID } from 'node:crypto';
import { systemClock, type Clock } from '../../core/clock.ts';
import type { AttemptLimit, AttemptReservation, Coordination } from '../../core/ports/coordination.ts';
import type { Lease } from '../../core/ports/leases.ts';
import type { TokenGrant, TokenRequest } from '../../core/ports/token-buckets.ts';
import { checkAttemptLimit, checkTokenRequest, checkTtl } from '../coordination-arguments.ts';
import { decodeExpiring, encodeExpiring } from './expiring-value.ts';
import { RedisConnection } from './redis-connection.ts';
import { compileRedisCoordinationOptions, type RedisCoordinationOptions } from './redis-coordination-options.ts';
import { closedError, toCoordinationError } from './redis-errors.ts';
import { RedisLeases } from './redis-leases.ts';
import { pendingAttemptsKey, RedisScripts } from './redis-scripts.ts';

/**
 * `Coordination` on Redis, shared by every node. Keys get the configured prefix
 * (callers namespace them per app with `appKey`); multi-step operations are Lua
 * scripts, leases are redlock locks. Windows, buckets and locks run on the
 * times callers pass, and values expire by the adapter's clock as well (Redis
 * is also given each TTL, so keys go away by themselves); only lease TTLs run
 * on the server's clock.
 *
 * While Redis cannot be reached every call rejects promptly with
 * `ServiceUnavailableError` (nothing is queued, every command has a timeout),
 * and the client keeps reconnecting, so service resumes by itself.
 */
export class RedisCoordination implements Coordination {
  readonly #connection: RedisConnection;
  readonly #scripts: RedisScripts;
  readonly #leases: RedisLeases;
  readonly #clock: Clock;

  /** Creates the adapter and waits until Redis is ready; see `connect()`. */
  static async open(options: RedisCoordinationOptions): Promise<RedisCoordination> {
    const coordination = new RedisCoordination(options);
    try {
      await coordination.connect();
    } catch (error) {
      await coordination.close();
      throw error;
    }
    return coordination;
  }

  /** Sets the client up without connecting; call `connect()` (or use `open()`) before serving. */
  constructor(options: RedisCoordinationOptions) {
    this.#connection = new RedisConnection(compileRedisCoordinationOptions(options));
    this.#clock = options.clock ?? systemClock;
    this.#scripts = new RedisScripts(this.#connection.client);
    this.#leases = new RedisLeases(this.#connection.client, { run: (operation) => this.#run(operation) });
  }

  /**
   * Connects and waits until Redis answers, retrying for at most
   * `readyTimeoutMs`, then rejects with `RedisNotReadyError`, which names the
   * address and the last connection error.
   */
  connect(): Promise<void> {
    return this.#connection.waitUntilReady();
  }

  async setIfAbsent(key: string, value: string, ttlMs: number): Promise<boolean> {
    checkTtl(ttlMs);
    const now = this.#clock.now();
    return this.#run(() => this.#scripts.setIfAbsent(key, encodeExpiring(value, now + ttlMs), now, ttlMs));
  }

  async set(key: string, value: string, ttlMs: number): Promise<void> {
    checkTtl(ttlMs);
    const encoded = encodeExpiring(value, this.#clock.now() + ttlMs);
    await this.#run(() => this.#client.set(key, encoded, 'PX', Math.ceil(ttlMs)));
  }

  async get(key: string): Promise<string | null> {
    return decodeExpiring(await this.#run(() => this.#client.get(key)), this.#clock.now());
  }

  async take(key: string): Promise<string | null> {
    return decodeExpiring(await this.#run(() => this.#scripts.take(key)), this.#clock.now());
  }

  async delete(key: string): Promise<void> {
    await this.#run(() => this.#client.del(key));
  }

  async recordEvent(key: string, now: number, windowMs: number): Promise<number> {
    checkTtl(windowMs);
    return this.#run(() => this.#scripts.recordEvent(key, now, windowMs, randomUUID()));
  }

  async reserveAttempt(windowKey: string, lockKey: string | null, limit: AttemptLimit): Promise<AttemptReservation> {
    checkAttemptLimit(limit);
    return this.#run(() => this.#scripts.reserveAttempt(windowKey, lockKey, limit, randomUUID()));
  }

  async settleAttempt(windowKey: string, attempt: string): Promise<void> {
    // A score of 0 is in the past for every caller: the next reservation drops it. XX adds nothing that is not there.
    await this.#run(() => this.#client.zadd(pendingAttemptsKey(windowKey), 'XX', 0, attempt));
  }

  async takeTokens(key: string, request: TokenRequest): Promise<TokenGrant> {
    checkTokenRequest(request);
    return this.#run(() => this.#scripts.tokenBucket(key, request));
  }

  acquireLease(name: string, ttlMs: number): Promise<Lease | null> {
    return this.#leases.acquireLease(name, ttlMs);
  }

  async ping(): Promise<void> {
    await this.#run(() => this.#client.ping());
  }

  /** Quits the connection (or drops it when Redis is away) and stops reconnecting; idempotent. */
  close(): Promise<void> {
    return this.#connection.close();
  }

  get #client(): RedisConnection['client'] {
    return this.#connection.client;
  }

  async #run<T>(operation: () => Promise<T>): Promise<T> {
    if (this.#connection.closed) throw closedError();
    try {
      return await operation();
    } catch (error) {
      throw toCoordinationError(error);
    }
  }
}
