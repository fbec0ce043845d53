import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { StoreConfig } from '../config/backends-schema.ts';
import type { Clock } from '../core/clock.ts';
import type { Logger } from '../core/logger.ts';
import type { ClassDescriptors, Store } from '../core/ports/object-store.ts';
import { CassandraStore } from '../store/cassandra/cassandra-store.ts';
import type { CassandraConnectionOptions, CassandraReplication } from '../store/cassandra/cassandra-store-options.ts';
import { migrateCassandra, type MigrationReport } from '../store/cassandra/migrations.ts';
import { sqliteSchemaVersion } from '../store/sqlite/sqlite-schema.ts';
import { SqliteStore } from '../store/sqlite/sqlite-store.ts';

export interface OpenStoreOptions {
  dataDir: string;
  classes: ClassDescriptors;
  clock: Clock;
  logger: Logger;
}

/** The configured store, its schema migrated: SQLite in the data directory, or Cassandra. */
export async function openStore(config: StoreConfig, options: OpenStoreOptions): Promise<Store> {
  if (config.kind === 'sqlite') {
    mkdirSync(options.dataDir, { recursive: true });
    return new SqliteStore({ file: sqliteFile(options.dataDir), classes: options.classes, clock: options.clock });
  }
  return CassandraStore.open({ ...cassandraConnection(config), classes: options.classes, clock: options.clock }, options.logger.child({ component: 'cassandra' }));
}

/**
 * Brings the configured store's schema to this code's version and answers the
 * version reached; for the `migrate` command, which a deployment may run before
 * rolling out API nodes (they would migrate on start anyway).
 */
export async function migrateStore(config: StoreConfig, options: Omit<OpenStoreOptions, 'classes' | 'clock'>): Promise<MigrationReport> {
  if (config.kind === 'cassandra') return migrateCassandra(cassandraConnection(config), options.logger.child({ component: 'cassandra' }));
  mkdirSync(options.dataDir, { recursive: true });
  // Opening the SQLite file migrates it in one transaction; which steps ran is not reported.
  await new SqliteStore({ file: sqliteFile(options.dataDir), classes: {} }).close();
  return { applied: [], version: sqliteSchemaVersion };
}

function sqliteFile(dataDir: string): string {
  return join(dataDir, 'herald.sqlite');
}

function cassandraConnection(config: StoreConfig): CassandraConnectionOptions {
  return {
    contactPoints: config.contactPoints ?? [],
    localDataCenter: config.localDataCenter,
    keyspace: config.keyspace,
    replication: replication(config.replication),
    username: config.username,
    password: config.password,
    requestTimeoutMs: config.requestTimeoutMs,
  };
}

function replication(setting: StoreConfig['replication']): CassandraReplication {
  if (typeof setting === 'number') return { class: 'SimpleStrategy', replication_factor: setting };
  return { class: 'NetworkTopologyStrategy', ...setting };
}
