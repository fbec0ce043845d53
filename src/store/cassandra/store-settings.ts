import type { types } from 'cassandra-driver';
import type { CqlSession } from './cassandra-client.ts';

/**
 * The `store_settings` table: a few named values of the keyspace, each
 * changed only by lightweight transactions (the installation shard count,
 * fixed at creation; the scheduler's low-water mark).
 */
export class StoreSettings {
  readonly #session: CqlSession;
  readonly #table: string;

  constructor(session: CqlSession, keyspace: string) {
    this.#session = session;
    this.#table = `${keyspace}.store_settings`;
  }

  async read(name: string): Promise<string | null> {
    const result = await this.#session.execute(`SELECT value FROM ${this.#table} WHERE name = ?`, [name]);
    const row = result.first() as types.Row | null;
    return row === null ? null : String(row.get('value'));
  }

  /** Stores `value` unless the setting exists; answers the setting's value afterwards. */
  async settle(name: string, value: string): Promise<string> {
    const result = await this.#session.execute(`INSERT INTO ${this.#table} (name, value) VALUES (?, ?) IF NOT EXISTS`, [name, value]);
    if (result.wasApplied()) return value;
    const row = result.first() as types.Row | null;
    return row === null ? value : String(row.get('value'));
  }

  /** Sets `value` if the setting is still `expected`; answers whether it did. */
  async replace(name: string, expected: string, value: string): Promise<boolean> {
    const result = await this.#session.execute(`UPDATE ${this.#table} SET value = ? WHERE name = ? IF value = ?`, [value, name, expected]);
    return result.wasApplied();
  }
}
