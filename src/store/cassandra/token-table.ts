import type { types } from 'cassandra-driver';
import type { Clock } from '../../core/clock.ts';
import type { CqlSession } from './cassandra-client.ts';

/** Cassandra's longest TTL (20 years). */
const maxTtlSeconds = 630_720_000;

/**
 * The `tokens` table, one partition per (app, kind, token hash). Rows carry
 * a TTL from their expiry, so Cassandra removes tokens nobody takes; the
 * expiry is still compared with the caller's `now`, as the TTL is rounded
 * up to whole seconds.
 */
export class TokenTable {
  readonly #session: CqlSession;
  readonly #table: string;
  readonly #clock: Clock;

  constructor(session: CqlSession, keyspace: string, clock: Clock) {
    this.#session = session;
    this.#table = `${keyspace}.tokens`;
    this.#clock = clock;
  }

  /**
   * A lightweight transaction like `take`: a plain write would carry this
   * Herald node's clock as its timestamp and `take`'s delete the Paxos ballot
   * of a Cassandra node's clock, so with clocks apart the delete could be
   * older than the write and lose to it (a link taken twice). Transactions on
   * one partition are ordered by their ballots, whatever the clocks say. The
   * hash is of a fresh random secret, so the row never exists already.
   */
  async put(appId: string, kind: string, tokenHash: string, payload: Record<string, string>, expiresAt: number): Promise<void> {
    const ttl = Math.min(maxTtlSeconds, Math.max(1, Math.ceil((expiresAt - this.#clock.now()) / 1000)));
    await this.#session.execute(
      `INSERT INTO ${this.#table} (app_id, kind, token_hash, payload, expires_at) VALUES (?, ?, ?, ?, ?) IF NOT EXISTS USING TTL ?`,
      [appId, kind, tokenHash, JSON.stringify(payload), new Date(expiresAt), ttl],
    );
  }

  async peek(appId: string, kind: string, tokenHash: string, now: number): Promise<Record<string, string> | null> {
    const row = await this.#read(appId, kind, tokenHash);
    return row !== null && row.expiresAt.getTime() > now ? row.payload : null;
  }

  /** Reads the token, then deletes it `IF expires_at = <read>`: of concurrent takers, only the one whose delete applied wins. */
  async take(appId: string, kind: string, tokenHash: string, now: number): Promise<Record<string, string> | null> {
    const row = await this.#read(appId, kind, tokenHash);
    if (row === null || row.expiresAt.getTime() <= now) return null;
    const deleted = await this.#session.execute(
      `DELETE FROM ${this.#table} WHERE app_id = ? AND kind = ? AND token_hash = ? IF expires_at = ?`,
      [appId, kind, tokenHash, row.expiresAt],
    );
    return deleted.wasApplied() ? row.payload : null;
  }

  async #read(appId: string, kind: string, tokenHash: string): Promise<{ payload: Record<string, string>; expiresAt: Date } | null> {
    const result = await this.#session.execute(
      `SELECT payload, expires_at FROM ${this.#table} WHERE app_id = ? AND kind = ? AND token_hash = ?`,
      [appId, kind, tokenHash],
    );
    const row = result.first() as types.Row | null;
    if (row === null) return null;
    const expiresAt: unknown = row.get('expires_at');
    if (!(expiresAt instanceof Date)) return null;
    return { payload: JSON.parse(String(row.get('payload'))) as Record<string, string>, expiresAt };
  }
}
