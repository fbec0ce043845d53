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
    socketOptions: { connectTimeout: options.connectTimeoutMs ?? cassandraDefaults.connectTimeoutMs, readTimeout: requestTimeoutMs },
    policies: { reconnection: new policies.reconnection.ExponentialReconnectionPolicy(200, 5_000, true) },
    queryOptions: { prepare: true, consistency: consistency.write, serialConsistency: consistency.serial },
  };
}
