import type { Client } from 'cassandra-driver';
import { systemClock } from '../../core/clock.ts';
import type { FieldOp, FindResult, Store, StoredObject, UniqueKey, UpdateOptions } from '../../core/ports/object-store.ts';
import type { Query } from '../../query/query.ts';
import { runQuery } from '../../query/run-query.ts';
import { connectCassandra } from './cassandra-client.ts';
import { closedStoreError, translateCassandraError } from './cassandra-errors.ts';
import { checkKeyspaceName } from './cassandra-schema.ts';
import { cassandraDefaults, type CassandraStoreOptions } from './cassandra-store-options.ts';
import { runCassandraMigrations, type MigrationLogger } from './migrations.ts';
import { ObjectTable } from './object-table.ts';
import { ObjectWrites } from './object-writes.ts';
import { TokenTable } from './token-table.ts';

/**
 * The clustered store: objects as JSON in partitions of (app, class, bucket),
 * unique values claimed with lightweight transactions, and expiring tokens.
 * Any number of Herald nodes may share a keyspace. Every failure to reach
 * Cassandra is answered as ServiceUnavailableError (503); the driver keeps
 * reconnecting, so the store works again as soon as Cassandra does.
 */
export class CassandraStore implements Store {
  readonly #client: Client;
  readonly #objects: ObjectTable;
  readonly #writes: ObjectWrites;
  readonly #tokens: TokenTable;
  #closing: Promise<void> | undefined;

  /**
   * Connects and brings the keyspace to the current schema (see
   * `migrateCassandra`). Fails with ServiceUnavailableError when Cassandra
   * cannot be reached.
   */
  static async open(options: CassandraStoreOptions, logger?: MigrationLogger): Promise<CassandraStore> {
    checkKeyspaceName(options.keyspace);
    const client = await connectCassandra(options);
    try {
      await runCassandraMigrations(client, options, logger);
    } catch (error) {
      await client.shutdown().catch(() => undefined);
      throw error;
    }
    return new CassandraStore(client, options);
  }

  private constructor(client: Client, options: CassandraStoreOptions) {
    this.#client = client;
    this.#objects = new ObjectTable(client, options.keyspace, options.fetchSize ?? cassandraDefaults.fetchSize);
    this.#writes = new ObjectWrites(client, options.keyspace, this.#objects, options.classes);
    this.#tokens = new TokenTable(client, options.keyspace, options.clock ?? systemClock);
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
