import type { ArrayOrObject, Client, QueryOptions, types } from 'cassandra-driver';
import { systemClock } from '../../core/clock.ts';
import type { InstallationStore } from '../../core/ports/installation-store.ts';
import type { FieldOp, FindResult, Store, StoredObject, UniqueKey, UpdateOptions } from '../../core/ports/object-store.ts';
import type { BulkInsertOptions, BulkInserts } from '../../core/ports/bulk-inserts.ts';
import type { DeliveryLogStore } from '../../core/ports/delivery-log-store.ts';
import type { PushStore } from '../../core/ports/push-store.ts';
import type { ScheduledPushStore } from '../../core/ports/scheduled-push-store.ts';
import type { Query } from '../../query/query.ts';
import { runQuery } from '../../query/run-query.ts';
import { checkShardCount, defaultInstallationShards, shardCountMismatch } from '../installation-shards.ts';
import { CassandraBulkInserts, type BulkInsertsContext } from './cassandra-bulk-inserts.ts';
import { connectCassandra, type CqlSession, type CqlStatement } from './cassandra-client.ts';
import { closedStoreError, translateCassandraError } from './cassandra-errors.ts';
import { checkKeyspaceName } from './cassandra-schema.ts';
import { CassandraDeliveryLogStore } from './cassandra-delivery-log-store.ts';
import { CassandraInstallationStore } from './cassandra-installation-store.ts';
import { CassandraPushStore } from './cassandra-push-store.ts';
import { CassandraScheduledPushStore } from './cassandra-scheduled-push-store.ts';
import { cassandraDefaults, type CassandraStoreOptions } from './cassandra-store-options.ts';
import { leveledSession } from './consistency-levels.ts';
import { cassandraConsistencyDefaults } from '../../config/cassandra-consistency.ts';
import { runCassandraMigrations, type MigrationLogger } from './migrations.ts';
import { startupRetry } from './startup-retry.ts';
import { ObjectTable } from './object-table.ts';
import { ObjectWrites } from './object-writes.ts';
import { StoreSettings } from './store-settings.ts';
import { TokenTable } from './token-table.ts';

/**
 * The clustered store: objects as JSON in partitions of (app, class, bucket),
 * unique values claimed with lightweight transactions, and expiring tokens;
 * and the push data (installations by shard with channel and device-type
 * index entries, push records with result rows, scheduled pushes by due minute).
 * Any number of Herald nodes may share a keyspace. Every failure to reach
 * Cassandra is answered as ServiceUnavailableError (503); the driver keeps
 * reconnecting, so the store works again as soon as Cassandra does.
 */
export class CassandraStore implements Store {
  readonly installations: InstallationStore;
  readonly pushes: PushStore;
  readonly scheduled: ScheduledPushStore;
  readonly deliveries: DeliveryLogStore;
  readonly #client: Client;
  readonly #objects: ObjectTable;
  readonly #writes: ObjectWrites;
  readonly #tokens: TokenTable;
  readonly #bulk: BulkInsertsContext & { session: CqlSession };
  #closing: Promise<void> | undefined;

  /**
   * Connects and brings the keyspace to the current schema (see
   * `migrateCassandra`), recording the installation shard count in a new
   * keyspace. Fails with ServiceUnavailableError when Cassandra cannot be
   * reached, and refuses a keyspace created with another shard count.
   */
  static async open(options: CassandraStoreOptions, logger?: MigrationLogger): Promise<CassandraStore> {
    checkKeyspaceName(options.keyspace);
    const shardCount = checkShardCount(options.installationShards ?? defaultInstallationShards);
    const client = await connectCassandra(options);
    const retry = startupRetry(logger, options.startupRetry);
    try {
      await runCassandraMigrations(client, options, logger, retry);
      await retry('settle the installation shard count', () => settleShardCount(client, options.keyspace, shardCount));
    } catch (error) {
      await client.shutdown().catch(() => undefined);
      throw translateCassandraError(error);
    }
    return new CassandraStore(client, options, shardCount);
  }

  private constructor(client: Client, options: CassandraStoreOptions, shardCount: number) {
    const fetchSize = options.fetchSize ?? cassandraDefaults.fetchSize;
    const clock = options.clock ?? systemClock;
    // Every statement at the configured levels: reads at `read`, writes at `write`, Paxos at `serial`.
    const leveled = leveledSession(client, { ...cassandraConsistencyDefaults, ...options.consistency });
    const session = guarded(leveled, () => this.#closing !== undefined);
    this.#client = client;
    this.#objects = new ObjectTable(leveled, options.keyspace, fetchSize);
    this.#writes = new ObjectWrites(leveled, options.keyspace, this.#objects, options.classes);
    this.#tokens = new TokenTable(leveled, options.keyspace, clock);
    const installations = new CassandraInstallationStore(session, options.keyspace, shardCount);
    this.installations = installations;
    this.#bulk = { session, keyspace: options.keyspace, classes: options.classes, fetchSize, shardOf: (objectId) => installations.shardOf(objectId) };
    this.pushes = new CassandraPushStore(session, options.keyspace, {
      clock,
      retentionMs: options.pushRetentionMs ?? cassandraDefaults.pushRetentionMs,
      fetchSize,
    });
    this.scheduled = new CassandraScheduledPushStore(session, options.keyspace, new StoreSettings(session, options.keyspace), fetchSize);
    this.deliveries = new CassandraDeliveryLogStore(session, options.keyspace, clock);
  }

  insert(appId: string, className: string, object: StoredObject): Promise<void> {
    return this.#run(() => this.#writes.insert(appId, className, object));
  }

  get(appId: string, className: string, objectId: string): Promise<StoredObject | null> {
    return this.#run(async () => (await this.#objects.read(appId, className, objectId))?.object ?? null);
  }

  findByUnique(appId: string, className: string, key: UniqueKey): Promise<StoredObject | null> {
    return this.#run(() => this.#writes.findByUnique(appId, className, key));
  }

  update(appId: string, className: string, objectId: string, ops: FieldOp[], options: UpdateOptions): Promise<StoredObject | null> {
    return this.#run(() => this.#writes.update(appId, className, objectId, ops, options));
  }

  delete(appId: string, className: string, objectId: string): Promise<boolean> {
    return this.#run(() => this.#writes.delete(appId, className, objectId));
  }

  /** Streams the class page by page through `runQuery`, which keeps only `skip + limit` candidates. */
  find(appId: string, className: string, query: Query): Promise<FindResult> {
    return this.#run(() => runQuery(this.#objects.scan(appId, className), query));
  }

  putToken(appId: string, kind: string, tokenHash: string, payload: Record<string, string>, expiresAt: number): Promise<void> {
    return this.#run(() => this.#tokens.put(appId, kind, tokenHash, payload, expiresAt));
  }

  peekToken(appId: string, kind: string, tokenHash: string, now: number): Promise<Record<string, string> | null> {
    return this.#run(() => this.#tokens.peek(appId, kind, tokenHash, now));
  }

  takeToken(appId: string, kind: string, tokenHash: string, now: number): Promise<Record<string, string> | null> {
    return this.#run(() => this.#tokens.take(appId, kind, tokenHash, now));
  }

  /** Inserts of many objects at once, for an import: see CassandraBulkInserts. */
  bulkInserts(options: BulkInsertOptions): BulkInserts {
    if (this.#closing !== undefined) throw closedStoreError();
    return new CassandraBulkInserts(this.#bulk.session, this.#bulk, options);
  }

  ping(): Promise<void> {
    return this.#run(async () => {
      await this.#client.execute('SELECT release_version FROM system.local');
    });
  }

  /** Closes the connections; later calls fail with 503. Idempotent. */
  async close(): Promise<void> {
    this.#closing ??= this.#client.shutdown();
    await this.#closing;
  }

  async #run<T>(work: () => Promise<T>): Promise<T> {
    if (this.#closing !== undefined) throw closedStoreError();
    try {
      return await work();
    } catch (error) {
      throw translateCassandraError(error);
    }
  }
}

const shardSetting = 'installationShards';

async function settleShardCount(session: CqlSession, keyspace: string, shardCount: number): Promise<void> {
  const stored = Number(await new StoreSettings(session, keyspace).settle(shardSetting, String(shardCount)));
  if (stored !== shardCount) throw shardCountMismatch(stored, shardCount);
}

/**
 * The client as the push data tables use it: refused once the store is
 * closing, and every failure to reach Cassandra answered as 503.
 */
function guarded(client: CqlSession, closing: () => boolean): CqlSession {
  const run = async (work: () => Promise<types.ResultSet>): Promise<types.ResultSet> => {
    if (closing()) throw closedStoreError();
    try {
      return await work();
    } catch (error) {
      throw translateCassandraError(error);
    }
  };
  return {
    execute: (query: string, params?: ArrayOrObject, options?: QueryOptions) => run(() => client.execute(query, params, options)),
    batch: (statements: CqlStatement[], options?: QueryOptions) => run(() => client.batch(statements, options)),
  };
}
