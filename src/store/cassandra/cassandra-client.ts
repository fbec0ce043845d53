import { Client, policies, types, type ArrayOrObject, type ClientOptions, type QueryOptions } from 'cassandra-driver';
import { cassandraDefaults, type CassandraConnectionOptions } from './cassandra-store-options.ts';
import { translateCassandraError } from './cassandra-errors.ts';

/** What the tables need of a client: running one statement (a Client is one). */
export interface CqlSession {
  execute(query: string, params?: ArrayOrObject, options?: QueryOptions): Promise<types.ResultSet>;
}

export const consistency = {
  /** Reads and writes: a majority of the local datacenter's replicas. */
  write: types.consistencies.localQuorum,
  /** Paxos phase of lightweight transactions, and reads that must see them settled. */
  serial: types.consistencies.localSerial,
} as const;

/**
 * Opens a client with Herald's defaults: prepared statements, LOCAL_QUORUM,
 * LOCAL_SERIAL for lightweight transactions, and reconnection attempts at
 * most a few seconds apart so that the store recovers soon after Cassandra
 * does. Fails with ServiceUnavailableError when no node answers in time.
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
  return {
    contactPoints: [...options.contactPoints],
    localDataCenter: options.localDataCenter,
    ...(options.username === undefined ? {} : { credentials: { username: options.username, password: options.password ?? '' } }),
    // The driver turns certificate verification off unless told otherwise; it stays on.
    ...(options.tls === undefined ? {} : { sslOptions: { ...options.tls, rejectUnauthorized: true } }),
    // Protocol v4, the highest this driver speaks: asked for v5 first, a Cassandra 5 node over TLS answers the
    // refusal twice, the driver frees the same stream id twice and later sends two requests on one id.
    protocolOptions: { maxVersion: types.protocolVersion.v4 },
    socketOptions: { connectTimeout: options.connectTimeoutMs ?? cassandraDefaults.connectTimeoutMs, readTimeout: requestTimeoutMs },
    policies: { reconnection: new policies.reconnection.ExponentialReconnectionPolicy(200, 5_000, true) },
    queryOptions: { prepare: true, consistency: consistency.write, serialConsistency: consistency.serial },
  };
}
