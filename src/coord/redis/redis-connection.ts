import { Redis } from 'ioredis';
import type { Logger } from '../../core/logger.ts';
import type { CompiledRedisCoordinationOptions } from './redis-coordination-options.ts';
import { closedError, isRefusal, RedisNotReadyError, RedisRefusedError } from './redis-errors.ts';

/**
 * The one ioredis client of a `RedisCoordination`, with its lifecycle: waiting
 * for readiness at start, reporting loss and recovery of the connection, and
 * an idempotent close. Reconnecting is ioredis's job; this only watches it.
 */
export class RedisConnection {
  readonly client: Redis;
  readonly #readyTimeoutMs: number;
  readonly #logger: Logger | undefined;
  #lastError: Error | undefined;
  #up = false;
  #wasEverUp = false;
  #closing: Promise<void> | null = null;

  constructor(options: CompiledRedisCoordinationOptions) {
    this.client = options.url === undefined ? new Redis(options.redis) : new Redis(options.url, options.redis);
    this.#readyTimeoutMs = options.readyTimeoutMs;
    this.#logger = options.logger;
    // Every failed reconnection attempt emits an error; keeping the last one
    // names the cause when start-up gives up, and a listener must exist anyway.
    this.client.on('error', (error: Error) => {
      this.#lastError = error;
    });
    this.client.on('ready', () => this.#onReady());
    this.client.on('close', () => this.#onClose());
  }

  /** `host:port` (or socket path) of the server, for messages; never the password. */
  get address(): string {
    const { host, port, path } = this.client.options;
    return path ?? `${host ?? 'localhost'}:${port ?? 6379}`;
  }

  get closed(): boolean {
    return this.#closing !== null;
  }

  /**
   * Connects and waits until the server answers, retrying for at most the
   * ready timeout; then rejects with `RedisNotReadyError`. A refusal that
   * retrying cannot mend (credentials, ACL, TLS) rejects at once with
   * `RedisRefusedError`.
   */
  async waitUntilReady(): Promise<void> {
    if (this.closed) throw closedError();
    const client = this.client;
    if (client.status === 'ready') return;
    const ready = new Promise<void>((resolve, reject) => {
      const settle = (): void => {
        clearTimeout(timer);
        client.off('ready', onReady);
        client.off('end', onEnd);
        client.off('error', onError);
      };
      const onReady = (): void => {
        settle();
        resolve();
      };
      const onEnd = (): void => {
        settle();
        reject(closedError());
      };
      const onError = (error: Error): void => {
        if (!isRefusal(error)) return;
        settle();
        reject(new RedisRefusedError(this.address, error));
      };
      const timer = setTimeout(() => {
        settle();
        reject(new RedisNotReadyError(this.address, this.#readyTimeoutMs, this.#lastError));
      }, this.#readyTimeoutMs);
      client.once('ready', onReady);
      client.once('end', onEnd);
      client.on('error', onError);
    });
    // A failed first attempt rejects here, but the retry strategy keeps dialling;
    // the outcome is whichever of ready or the timeout comes first.
    if (client.status === 'wait') client.connect().catch(() => undefined);
    await ready;
  }

  /** Quits politely when connected, else drops the socket and stops reconnecting; idempotent. */
  close(): Promise<void> {
    this.#closing ??= this.#shutDown();
    return this.#closing;
  }

  async #shutDown(): Promise<void> {
    if (this.client.status === 'ready') {
      try {
        await this.client.quit();
        return;
      } catch {
        // The server went away meanwhile; disconnecting below still ends the client.
      }
    }
    this.client.disconnect();
  }

  #onReady(): void {
    if (this.#wasEverUp && !this.#up) this.#logger?.info({ redis: this.address }, 'Redis connection restored');
    this.#up = true;
    this.#wasEverUp = true;
  }

  #onClose(): void {
    if (this.#up && !this.closed) {
      this.#logger?.warn({ redis: this.address, err: this.#lastError }, 'Redis connection lost; coordination calls fail until it is back');
    }
    this.#up = false;
  }
}
