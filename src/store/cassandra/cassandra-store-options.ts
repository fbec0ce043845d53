import type { ConnectionOptions } from 'node:tls';
import type { Clock } from '../../core/clock.ts';
import type { ClassDescriptors } from '../../core/ports/object-store.ts';
import type { CassandraConsistency } from '../../config/cassandra-consistency.ts';
import type { StartupRetryOptions } from './startup-retry.ts';

/**
 * Keyspace replication, used only when the keyspace is created: CQL map text
 * such as `{'class': 'NetworkTopologyStrategy', 'dc1': 3}`, or the same map as
 * an object. Default: SimpleStrategy with replication factor 1.
 */
export type CassandraReplication = string | Readonly<Record<string, string | number>>;

/** Where the cluster is and which keyspace Herald owns; enough to run migrations. */
export interface CassandraConnectionOptions {
  /** `host` or `host:port` of one or more nodes. */
  contactPoints: readonly string[];
  /** The datacenter whose nodes serve requests; LOCAL_QUORUM and LOCAL_SERIAL are counted there. */
  localDataCenter: string;
  /** Lower-case letters, digits and `_`, starting with a letter. Created by the migrations. */
  keyspace: string;
  replication?: CassandraReplication;
  /** A role of the password authenticator, and its password. */
  username?: string;
  password?: string;
  /**
   * TLS to every node: `node:tls` options (the CA, a client certificate and
   * key, a server name). The node's certificate is verified whatever they say.
   */
  tls?: ConnectionOptions;
  /** How long one request may wait for a node's answer before failing with 503. Default 10000 ms. */
  requestTimeoutMs?: number;
  /** How long opening a connection may take. Default 5000 ms. */
  connectTimeoutMs?: number;
  /** Consistency levels of reads, writes and lightweight transactions; default LOCAL_QUORUM, LOCAL_QUORUM, LOCAL_SERIAL. */
  consistency?: Partial<CassandraConsistency>;
}

export interface CassandraStoreOptions extends CassandraConnectionOptions {
  /** Unique-key rules per class; classes without one have no unique keys. */
  classes: ClassDescriptors;
  /** Time source for the lifetime of tokens (their TTL). Default: the system clock. */
  clock?: Clock;
  /** Rows per page when `find` streams a class, and when push data is listed or summed. Default 500. */
  fetchSize?: number;
  /**
   * Installation shards per app (see InstallationStore). Recorded in the
   * keyspace when it is first opened; opening it with another count is
   * refused. Default 64; aim for at most ~100,000 installations per shard.
   */
  installationShards?: number;
  /** How long push records and their results live (their TTL). Default 7 days. */
  pushRetentionMs?: number;
  /** How long opening may keep retrying steps Cassandra did not answer in time (see startupRetry). */
  startupRetry?: StartupRetryOptions;
}

export const cassandraDefaults = {
  replication: { class: 'SimpleStrategy', replication_factor: 1 },
  requestTimeoutMs: 10_000,
  connectTimeoutMs: 5_000,
  fetchSize: 500,
  pushRetentionMs: 7 * 86_400_000,
} as const;
