import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import { setTimeout as delay } from 'node:timers/promises';
import type { Client } from 'cassandra-driver';
import { connectCassandra, type CqlSession } from './cassandra-client.ts';
import { translateCassandraError } from './cassandra-errors.ts';
import {
  bootstrapStatements,
  bootstrapTables,
  cassandraMigrations,
  cassandraSchemaVersion,
  checkKeyspaceName,
  type CassandraMigration,
} from './cassandra-schema.ts';
import { cassandraDefaults, type CassandraConnectionOptions } from './cassandra-store-options.ts';
import { SchemaLease } from './schema-lease.ts';
import { startupRetry, type StartupLogger } from './startup-retry.ts';

/** The part of a logger migrations use; a pino logger fits. */
export type MigrationLogger = StartupLogger;

export interface MigrationReport {
  /** Versions this call applied; empty when they were applied already, by this node or another. */
  applied: number[];
  /** The keyspace's schema version afterwards. */
  version: number;
}

/**
 * How long a lease lives without renewal (so a node that dies mid-way blocks
 * the others this long at most), how long a node waits for another one's
 * migrations, and how often it looks.
 */
const leaseTtlSeconds = 60;
const waitMs = 180_000;
const pollMs = 250;
/** DDL may take much longer than a query on a busy cluster. */
const ddlTimeoutMs = 60_000;

/** What migrations need of a client: statements, and its view of schema agreement. */
export type MigrationSession = CqlSession & Pick<Client, 'metadata'>;

/**
 * Brings the keyspace to this code's schema version, creating it if needed,
 * and answers what was done. For a `migrate` command; `CassandraStore.open`
 * runs the same steps on its own client.
 */
export async function migrateCassandra(options: CassandraConnectionOptions, logger?: MigrationLogger): Promise<MigrationReport> {
  const client = await connectCassandra(options);
  try {
    return await runCassandraMigrations(client, options, logger);
  } finally {
    await client.shutdown();
  }
}

/**
 * Safe from several nodes at once. Everyone may create the keyspace and the
 * two bookkeeping tables (idempotent DDL, deterministic table ids); only the
 * holder of the schema lease runs versioned steps, recording each in
 * `schema_migrations` once its DDL has reached schema agreement. The others
 * poll until every step is recorded, or take the lease when it is released
 * or its holder died. Refuses a keyspace newer than this code. Each of the
 * two phases is run through `retry`, which may run it again after a timeout
 * (every step is idempotent, and the lease is known as this run's own).
 */
export async function runCassandraMigrations(
  session: MigrationSession,
  options: Pick<CassandraConnectionOptions, 'keyspace' | 'replication'>,
  logger?: MigrationLogger,
  retry: ReturnType<typeof startupRetry> = startupRetry(logger),
): Promise<MigrationReport> {
  const keyspace = checkKeyspaceName(options.keyspace);
  const run = new MigrationRun(session, keyspace, logger);
  try {
    await retry('create the keyspace', () => run.bootstrap(options.replication ?? cassandraDefaults.replication));
    return await retry('migrate the schema', () => run.migrate());
  } catch (error) {
    throw translateCassandraError(error);
  }
}

class MigrationRun {
  readonly #session: MigrationSession;
  readonly #keyspace: string;
  readonly #logger: MigrationLogger | undefined;
  readonly #holder = `${hostname()}/${process.pid}/${randomUUID()}`;
  /** Versions this run applied, kept across a retry of `migrate` (one whose recording timed out is among them). */
  readonly #applied = new Set<number>();

  constructor(session: MigrationSession, keyspace: string, logger: MigrationLogger | undefined) {
    this.#session = session;
    this.#keyspace = keyspace;
    this.#logger = logger;
  }

  async bootstrap(replication: NonNullable<CassandraConnectionOptions['replication']>): Promise<void> {
    const existing = await this.#session.execute('SELECT table_name FROM system_schema.tables WHERE keyspace_name = ?', [this.#keyspace]);
    const tables = new Set(existing.rows.map((row) => String(row.get('table_name'))));
    if (bootstrapTables.every((table) => tables.has(table))) return;
    for (const statement of bootstrapStatements(this.#keyspace, replication)) await this.#ddl(statement);
  }

  async migrate(): Promise<MigrationReport> {
    const deadline = Date.now() + waitMs;
    const lease = new SchemaLease(this.#session, this.#keyspace, this.#holder, leaseTtlSeconds);
    let waiting = false;
    for (;;) {
      if ((await this.#whenVisible(() => this.#due())).length === 0) return { applied: [...this.#applied].sort((a, b) => a - b), version: cassandraSchemaVersion };
      if (await this.#whenVisible(() => lease.take())) {
        try {
          // Read again under the lease: another node may have finished just before.
          for (const migration of await this.#due()) {
            await lease.renew();
            await this.#apply(migration, () => lease.renew());
          }
        } finally {
          // A lease that cannot be released expires by itself.
          await lease.release().catch(() => undefined);
        }
        continue;
      }
      if (Date.now() > deadline) throw new Error(`gave up waiting ${waitMs} ms for another node to migrate Cassandra keyspace ${this.#keyspace}`);
      if (!waiting) this.#logger?.info({ keyspace: this.#keyspace }, 'waiting for another node to migrate the Cassandra schema');
      waiting = true;
      await delay(pollMs);
    }
  }

  /**
   * Runs `work`, retrying while a table another node has just created is not
   * live yet: its rows in system_schema can be seen a moment before the
   * coordinator serves it, and then statements fail with "does not exist".
   */
  async #whenVisible<T>(work: () => Promise<T>): Promise<T> {
    const deadline = Date.now() + ddlTimeoutMs;
    for (;;) {
      try {
        return await work();
      } catch (error) {
        if (!isUnknownTable(error) || Date.now() > deadline) throw error;
        await delay(pollMs);
      }
    }
  }

  async #due(): Promise<CassandraMigration[]> {
    const result = await this.#session.execute(`SELECT version FROM ${this.#keyspace}.schema_migrations`);
    const done = new Set(result.rows.map((row) => Number(row.get('version'))));
    const newest = Math.max(0, ...done);
    if (newest > cassandraSchemaVersion) {
      throw new Error(
        `Cassandra keyspace ${this.#keyspace} has schema version ${newest}, newer than this Herald understands (${cassandraSchemaVersion})`,
      );
    }
    return cassandraMigrations.filter((migration) => !done.has(migration.version));
  }

  async #apply(migration: CassandraMigration, renew: () => Promise<void>): Promise<void> {
    this.#logger?.info({ keyspace: this.#keyspace, version: migration.version }, `applying Cassandra migration: ${migration.description}`);
    for (const statement of migration.statements(this.#keyspace)) await this.#ddl(statement);
    await migration.data?.(this.#session, this.#keyspace, renew);
    this.#applied.add(migration.version);
    await this.#session.execute(
      `INSERT INTO ${this.#keyspace}.schema_migrations (version, description, applied_at, applied_by)
       VALUES (?, ?, toTimestamp(now()), ?) IF NOT EXISTS`,
      [migration.version, migration.description, this.#holder],
    );
  }

  /** Runs one DDL statement and waits until every node has the new schema. */
  async #ddl(statement: string): Promise<void> {
    await this.#session.execute(statement, [], { prepare: false, readTimeout: ddlTimeoutMs });
    const deadline = Date.now() + ddlTimeoutMs;
    while (!(await this.#schemaAgrees())) {
      if (Date.now() > deadline) throw new Error(`Cassandra nodes did not agree on the schema within ${ddlTimeoutMs} ms`);
      await delay(pollMs);
    }
  }

  async #schemaAgrees(): Promise<boolean> {
    // Documented by the driver, missing from its type declarations.
    const metadata: unknown = this.#session.metadata;
    if (!hasAgreementCheck(metadata)) return true;
    return metadata.checkSchemaAgreement();
  }
}

function isUnknownTable(error: unknown): boolean {
  return error instanceof Error && /table \S+ does not exist|unconfigured table/i.test(error.message);
}

function hasAgreementCheck(metadata: unknown): metadata is { checkSchemaAgreement(): Promise<boolean> } {
  return typeof metadata === 'object' && metadata !== null && 'checkSchemaAgreement' in metadata && typeof metadata.checkSchemaAgreement === 'function';
}
