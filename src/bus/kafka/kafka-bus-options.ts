import type { ConnectionOptions } from 'node:tls';
import type { ISocketFactory } from 'kafkajs';
import type { Logger } from '../../core/logger.ts';

/** SASL to the brokers: PLAIN or SCRAM, with a username and password. */
export type KafkaSasl = ({ mechanism: 'plain' } | { mechanism: 'scram-sha-256' } | { mechanism: 'scram-sha-512' }) & { username: string; password: string };

export interface KafkaBusOptions {
  /** `host:port` of one or more brokers to bootstrap from. */
  brokers: readonly string[];
  logger: Logger;
  /** Names this process to the brokers; default `herald`. */
  clientId?: string;
  /**
   * TLS to the brokers: `node:tls` options (the CA, a client certificate and
   * key, a server name); the brokers' certificates are always verified.
   */
  tls?: ConnectionOptions;
  /** SASL authentication on each connection. */
  sasl?: KafkaSasl;
  /** Default 3 s. */
  connectionTimeoutMs?: number;
  /** Default 30 s. */
  requestTimeoutMs?: number;
  /**
   * Times a failed request is retried (from 100 ms, doubling) before the call
   * fails with `ServiceUnavailableError`; default 5.
   */
  retries?: number;
  /** Replicas of each topic `ensureTopics` creates; default 3, or the number of brokers when fewer answer. */
  replicationFactor?: number;
  /**
   * `min.insync.replicas` of each topic `ensureTopics` creates: how many
   * replicas must have a message before a produce (acks=all) is answered;
   * default 2 when the replication factor is 3 or more, else 1.
   */
  minInsyncReplicas?: number;
  /** Number every batch so that one sent again after a lost answer is written once (Kafka idempotence); default true. */
  idempotent?: boolean;
  /** Produce requests in flight at once; at most 5, which keeps an idempotent producer's batches in order. Default 5. */
  maxInFlightRequests?: number;
  /** A member that sends no heartbeat for this long is dropped from its group; default 30 s. */
  sessionTimeoutMs?: number;
  /** Default 3 s; must be below the session timeout (a third of it is usual). */
  heartbeatIntervalMs?: number;
  /** How long a rebalance waits for members to finish in-flight handlers and rejoin; default 60 s. */
  rebalanceTimeoutMs?: number;
  /** How long a fetch waits on the broker for new messages; also what `close()` may wait for the fetch loop; default 500 ms. */
  maxWaitTimeMs?: number;
  /** Opens the connections to the brokers (through a proxy, say); default plain TCP with keep-alive. */
  socketFactory?: ISocketFactory;
}

/** `KafkaBusOptions` checked, with every default filled in. */
export interface KafkaBusSettings {
  readonly brokers: readonly string[];
  readonly clientId: string;
  readonly tls: ConnectionOptions | undefined;
  readonly sasl: KafkaSasl | undefined;
  readonly connectionTimeoutMs: number;
  readonly requestTimeoutMs: number;
  readonly retries: number;
  /** Undefined: chosen when topics are created, from the brokers that answer. */
  readonly replicationFactor: number | undefined;
  readonly minInsyncReplicas: number | undefined;
  readonly idempotent: boolean;
  readonly maxInFlightRequests: number;
  readonly sessionTimeoutMs: number;
  readonly heartbeatIntervalMs: number;
  readonly rebalanceTimeoutMs: number;
  readonly maxWaitTimeMs: number;
}

export function compileKafkaBusOptions(options: KafkaBusOptions): KafkaBusSettings {
  const settings: KafkaBusSettings = {
    brokers: Object.freeze([...options.brokers]),
    clientId: options.clientId ?? 'herald',
    tls: options.tls === undefined ? undefined : { ...options.tls, rejectUnauthorized: true },
    // A copy: kafkajs keeps the authenticator it makes on the object it is given, password and all.
    sasl: options.sasl === undefined ? undefined : { ...options.sasl },
    connectionTimeoutMs: options.connectionTimeoutMs ?? 3_000,
    requestTimeoutMs: options.requestTimeoutMs ?? 30_000,
    retries: options.retries ?? 5,
    replicationFactor: options.replicationFactor,
    minInsyncReplicas: options.minInsyncReplicas,
    idempotent: options.idempotent ?? true,
    maxInFlightRequests: options.maxInFlightRequests ?? 5,
    sessionTimeoutMs: options.sessionTimeoutMs ?? 30_000,
    heartbeatIntervalMs: options.heartbeatIntervalMs ?? 3_000,
    rebalanceTimeoutMs: options.rebalanceTimeoutMs ?? 60_000,
    maxWaitTimeMs: options.maxWaitTimeMs ?? 500,
  };
  if (settings.brokers.length === 0) throw new TypeError('KafkaBus: brokers must list at least one broker');
  if (!Number.isInteger(settings.retries) || settings.retries < 0) throw new RangeError('KafkaBus: retries must be a whole number');
  if (!Number.isInteger(settings.maxInFlightRequests) || settings.maxInFlightRequests < 1 || settings.maxInFlightRequests > 5) {
    throw new RangeError('KafkaBus: maxInFlightRequests must be 1 to 5');
  }
  if (settings.heartbeatIntervalMs >= settings.sessionTimeoutMs) {
    throw new RangeError('KafkaBus: heartbeatIntervalMs must be below sessionTimeoutMs');
  }
  return Object.freeze(settings);
}

/** The replication of new topics on a cluster of `brokers`: the settings, or 3 (at most the brokers) with min.insync.replicas one less, at least 1. */
export function topicReplication(settings: Pick<KafkaBusSettings, 'replicationFactor' | 'minInsyncReplicas'>, brokers: number): { replicationFactor: number; minInsyncReplicas: number } {
  const replicationFactor = settings.replicationFactor ?? Math.max(1, Math.min(3, brokers));
  const minInsyncReplicas = settings.minInsyncReplicas ?? (replicationFactor >= 3 ? 2 : 1);
  return { replicationFactor, minInsyncReplicas };
}
