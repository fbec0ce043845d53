import type { types } from 'cassandra-driver';
import type { CqlSession } from './cassandra-client.ts';

const leaseName = 'migrations';

/**
 * The right to change the schema, held by one node at a time: a row taken
 * with `INSERT … IF NOT EXISTS USING TTL`, so that a node that dies while
 * holding it loses it after `ttlSeconds`.
 */
export class SchemaLease {
  readonly #session: CqlSession;
  readonly #keyspace: string;
  readonly #holder: string;
  readonly #ttlSeconds: number;

  constructor(session: CqlSession, keyspace: string, holder: string, ttlSeconds: number) {
    this.#session = session;
    this.#keyspace = keyspace;
    this.#holder = holder;
    this.#ttlSeconds = ttlSeconds;
  }

  /**
   * Answers whether this node now holds the lease: it took it now, or an
   * earlier try whose answer timed out had taken it after all.
   */
  async take(): Promise<boolean> {
    const result = await this.#session.execute(
      `INSERT INTO ${this.#keyspace}.schema_lease (name, holder, taken_at) VALUES (?, ?, toTimestamp(now())) IF NOT EXISTS USING TTL ?`,
      [leaseName, this.#holder, this.#ttlSeconds],
    );
    if (result.wasApplied()) return true;
    const current = result.first() as types.Row | null;
    return current !== null && current.get('holder') === this.#holder;
  }

  /** Extends the lease before a long step; throws when another node took it meanwhile. */
  async renew(): Promise<void> {
    const result = await this.#session.execute(
      `UPDATE ${this.#keyspace}.schema_lease USING TTL ? SET holder = ? WHERE name = ? IF holder = ?`,
      [this.#ttlSeconds, this.#holder, leaseName, this.#holder],
    );
    if (!result.wasApplied()) throw new Error('lost the Cassandra schema lease while migrating; another node may be migrating too');
  }

  async release(): Promise<void> {
    await this.#session.execute(`DELETE FROM ${this.#keyspace}.schema_lease WHERE name = ? IF holder = ?`, [leaseName, this.#holder]);
  }
}
