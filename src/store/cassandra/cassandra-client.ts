import { Client, policies, types, type ArrayOrObject, type ClientOptions, type QueryOptions } from 'cassandra-driver';
import { cassandraDefaults, type CassandraConnectionOptions } from './cassandra-store-options.ts';
import { translateCassandraError } from './cassandra-errors.ts';
import { consistencyCode } from './consistency-levels.ts';
import { cassandraConsistencyDefaults } from '../../config/cassandra-consistency.ts';

/** One statement of a batch. */
export interface CqlStatement {
  query: string;
  params: ArrayOrObject;
}

/**
 * Partitions one unlogged batch may touch before Cassandra logs a warning
 * (`unlogged_batch_across_partitions_warn_threshold`, 10 by default): rows of
 * many small partitions written together go this many to a batch, which
 * saves a request each without the coordinator waiting on more replicas
 * than that.
 */
export const unloggedBatchPartitions = 10;

/** What the tables need of a client: running one statement, or a batch of them (a Client is one). */
export interface CqlSession {
  execute(query: string, params?: ArrayOrObject, options?: QueryOptions): Promise<types.ResultSet>;
  /** A batch: conditional ones (lightweight transactions) must stay in one partition and apply whole or not at all. */
  batch(statements: CqlStatement[], options?: QueryOptions): Promise<types.ResultSet>;
}

/**
 * Writes rows without a condition: one alone as its own statement, several
 * as one unlogged batch (a batch of one costs the coordinator a batch's
 * handling for nothing).
 */
export async function writeUnlogged(session: CqlSession, statements: readonly CqlStatement[]): Promise<void> {
  const [only] = statements;
  if (statements.length === 1 && only !== undefined) await session.execute(only.query, only.params, { prepare: true });
  else await session.batch([...statements], { logged: false, prepare: true });
}

/**
 * Opens a client with Herald's defaults: prepared statements, the configured
 * write and serial levels (LOCAL_QUORUM and LOCAL_SERIAL unless set; reads
 * get theirs from `leveledSession`), and reconnection attempts at most a few
 * seconds apart so that the store recovers soon after Cassandra does. Fails
 * with ServiceUnavailableError when no node answers in time.
 */
export async function connectCassandra(options: CassandraConnectionOptions): Promise<Client> {
  const client = new Client(clientOptions(options));
  try {
    await client.connect();
    return client;
  } catch (error) {
    await client.shutdown().catch(() => undefined);
    throw translateCassandraError(error);
  }
}

function clientOptions(options: CassandraConnectionOptions): ClientOptions {
  const requestTimeoutMs = options.requestTimeoutMs ?? cassandraDefaults.requestTimeoutMs;
  const levels = { ...cassandraConsistencyDefaults, ...options.consistency };
  return {
    contactPoints: [...options.contactPoints],
    localDataCenter: options.localDataCenter,
    ...(options.username === undefined ? {} : { credentials: { username: options.username, password: options.password ?? '' } }),
    // The driver turns certificate verification off unless told otherwise; it stays on.
    ...(options.tls === undefined ? {} : { sslOptions: { ...options.tls, rejectUnauthorized: true } }),
    // Protocol v4, the highest this driver speaks: asked for v5 first, a Cassandra 5 node over TLS answers the
    // refusal twice, the driver frees the same stream id twice and later sends two requests on one id.
    // The port of the nodes the driver discovers (it reads no port from system.peers): the contact points' own.
    protocolOptions: { maxVersion: types.protocolVersion.v4, port: nativePort(options.contactPoints) },
    socketOptions: { connectTimeout: options.connectTimeoutMs ?? cassandraDefaults.connectTimeoutMs, readTimeout: requestTimeoutMs },
    policies: { reconnection: new policies.reconnection.ExponentialReconnectionPolicy(200, 5_000, true) },
    queryOptions: { prepare: true, consistency: consistencyCode(levels.write), serialConsistency: consistencyCode(levels.serial) },
  };
}

/** The CQL port the contact points name (the first that names one), else Cassandra's 9042. */
export function nativePort(contactPoints: readonly string[]): number {
  for (const point of contactPoints) {
    const port = /:(\d{1,5})$/.exec(point)?.[1];
    if (port !== undefined) return Number(port);
  }
  return 9042;
}
