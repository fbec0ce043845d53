import type { ConnectionOptions } from 'node:tls';
import type { RedisOptions } from 'ioredis';
import type { Clock } from '../../core/clock.ts';
import type { Logger } from '../../core/logger.ts';

/** Where the Redis of `RedisCoordination` is, and how patiently to talk to it. */
export interface RedisCoordinationOptions {
  /**
   * `redis://[[user]:password@]host[:port][/db]`, or `rediss://` for TLS. Its
   * parts win over `host`, `port`, `username`, `password` and `db`, which are for
   * setups without a URL.
   */
  url?: string;
  host?: string;
  port?: number;
  username?: string;
  password?: string;
  db?: number;
  /**
   * TLS to the server: true for the system CAs, or `node:tls` options (a CA,
   * a client certificate and key, a server name). A `rediss://` URL turns it
   * on too. The server's certificate is always verified.
   */
  tls?: boolean | ConnectionOptions;
  /** Put before every key written, so that Herald can share a server; default `herald:`. */
  keyPrefix?: string;
  /** Longest one connection attempt may take; default 2 s. */
  connectTimeoutMs?: number;
  /** Longest `connect()` and `open()` wait for the server, retrying meanwhile; default 10 s. */
  readyTimeoutMs?: number;
  /** Longest a call waits for its reply before failing as unavailable; default 2 s. */
  commandTimeoutMs?: number;
  /** Cap on the growing delay between reconnection attempts; default 2 s. */
  maxReconnectDelayMs?: number;
  /** Where loss and recovery of the connection are reported. */
  logger?: Logger;
  /** The time values expire by; the system clock by default. */
  clock?: Clock;
}

export const defaultKeyPrefix = 'herald:';

/** The options resolved once, ready for ioredis. */
export interface CompiledRedisCoordinationOptions {
  url: string | undefined;
  redis: RedisOptions;
  readyTimeoutMs: number;
  logger: Logger | undefined;
}

/**
 * Resolves defaults and sets ioredis up to fail fast: nothing is queued while
 * disconnected, a reply lost with its connection is an error rather than a
 * resend (scripts that count must not run twice), and every command is bounded
 * by a timeout. Reconnection never stops, so the client recovers on its own.
 */
export function compileRedisCoordinationOptions(options: RedisCoordinationOptions): CompiledRedisCoordinationOptions {
  const commandTimeoutMs = positive('commandTimeoutMs', options.commandTimeoutMs ?? 2000);
  const maxReconnectDelayMs = positive('maxReconnectDelayMs', options.maxReconnectDelayMs ?? 2000);
  const redis: RedisOptions = {
    host: options.host,
    port: options.port,
    username: options.username,
    password: options.password,
    db: options.db,
    // Certificates are verified whatever the options say.
    tls: options.tls === true ? {} : options.tls === false || options.tls === undefined ? undefined : { ...options.tls, rejectUnauthorized: true },
    keyPrefix: options.keyPrefix ?? defaultKeyPrefix,
    connectionName: 'herald-coordination',
    lazyConnect: true,
    connectTimeout: positive('connectTimeoutMs', options.connectTimeoutMs ?? 2000),
    commandTimeout: commandTimeoutMs,
    // A connection that stops answering (a paused or partitioned server) is
    // dropped and redialled instead of timing out every command forever.
    socketTimeout: commandTimeoutMs * 2,
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
    autoResendUnfulfilledCommands: false,
    retryStrategy: (attempt) => Math.min(50 * 2 ** Math.min(attempt - 1, 16), maxReconnectDelayMs),
  };
  return {
    url: options.url,
    redis,
    readyTimeoutMs: positive('readyTimeoutMs', options.readyTimeoutMs ?? 10_000),
    logger: options.logger,
  };
}

function positive(name: string, ms: number): number {
  if (!Number.isFinite(ms) || ms <= 0) throw new RangeError(`${name} must be positive milliseconds, got ${ms}`);
  return ms;
}
