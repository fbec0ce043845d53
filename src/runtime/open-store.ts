import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { StoreConfig } from '../config/backends-schema.ts';
import { passwordOf, tlsOptionsOf } from '../config/secret-files.ts';
import type { Clock } from '../core/clock.ts';
import { ServiceUnavailableError } from '../core/errors.ts';
import type { Logger } from '../core/logger.ts';
import type { ClassDescriptors, Store } from '../core/ports/object-store.ts';
import type { CassandraConnectionOptions, CassandraReplication } from '../store/cassandra/cassandra-store-options.ts';
import type { MigrationReport } from '../store/cassandra/migrations.ts';
import { migrateSqliteFile, sqliteSchemaVersion } from '../store/sqlite/sqlite-schema.ts';
import { SqliteStore } from '../store/sqlite/sqlite-store.ts';
import { BackendStartError } from './backend-start-error.ts';

export interface OpenStoreOptions {
  dataDir: string;
  classes: ClassDescriptors;
  clock: Clock;
  logger: Logger;
  /** Installation shards per app; fixed when the store is created (default 64). */
  installationShards?: number;
  /** How long push records live on Cassandra (TTL); on SQLite the scheduler purges them. Default 7 days. */
  pushRetentionMs?: number;
}

/** The configured store, its schema migrated: SQLite in the data directory, or Cassandra. */
export async function openStore(config: StoreConfig, options: OpenStoreOptions): Promise<Store> {
  if (config.kind === 'sqlite') {
    mkdirSync(options.dataDir, { recursive: true });
    return new SqliteStore({
      file: sqliteFile(options.dataDir),
      classes: options.classes,
      clock: options.clock,
      installationShards: options.installationShards,
      synchronous: config.sqliteSync,
      processLockFile: join(options.dataDir, 'herald.pid'),
    });
  }
  const connection = cassandraConnection(config);
  // The Cassandra driver is loaded only when configured: the embedded default never pays for its memory.
  const { CassandraStore } = await import('../store/cassandra/cassandra-store.ts');
  return CassandraStore.open(
    {
      ...connection,
      classes: options.classes,
      clock: options.clock,
      installationShards: options.installationShards,
      pushRetentionMs: options.pushRetentionMs,
    },
    options.logger.child({ component: 'cassandra' }),
  ).catch((error: unknown) => {
    throw startError(error, connection);
  });
}

/**
 * Brings the configured store's schema to this code's version and answers the
 * version reached; for the `migrate` command, which a deployment may run before
 * rolling out API nodes (they would migrate on start anyway).
 */
export async function migrateStore(config: StoreConfig, options: Omit<OpenStoreOptions, 'classes' | 'clock'>): Promise<MigrationReport> {
  if (config.kind === 'cassandra') {
    const connection = cassandraConnection(config);
    const { migrateCassandra } = await import('../store/cassandra/migrations.ts');
    return migrateCassandra(connection, options.logger.child({ component: 'cassandra' })).catch((error: unknown) => {
      throw startError(error, connection);
    });
  }
  mkdirSync(options.dataDir, { recursive: true });
  // Migrates in one transaction; which steps ran is not reported. Settings such as the
  // installation shard count are recorded by the first store opened, from its config.
  migrateSqliteFile(sqliteFile(options.dataDir));
  return { applied: [], version: sqliteSchemaVersion };
}

function sqliteFile(dataDir: string): string {
  return join(dataDir, 'herald.sqlite');
}

/** The connection settings, the password and TLS files read (a ConfigError names a setting whose file is unusable). */
function cassandraConnection(config: StoreConfig): CassandraConnectionOptions {
  return {
    contactPoints: config.contactPoints ?? [],
    localDataCenter: config.localDataCenter,
    keyspace: config.keyspace,
    replication: replication(config.replication),
    username: config.username,
    password: passwordOf(config, ['store']),
    tls: tlsOptionsOf(config.tls, ['store', 'tls']),
    requestTimeoutMs: config.requestTimeoutMs,
    consistency: config.consistency,
  };
}

/** Not reaching Cassandra at start says where and why; any other failure (a migration's) is left as it is. */
function startError(error: unknown, connection: CassandraConnectionOptions): unknown {
  if (!(error instanceof ServiceUnavailableError)) return error;
  return new BackendStartError('Cassandra', connection.contactPoints.join(', '), error, { tls: connection.tls !== undefined });
}

function replication(setting: StoreConfig['replication']): CassandraReplication {
  if (typeof setting === 'number') return { class: 'SimpleStrategy', replication_factor: setting };
  return { class: 'NetworkTopologyStrategy', ...setting };
}
