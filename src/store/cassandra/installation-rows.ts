import { types } from 'cassandra-driver';
import type { StoredObject } from '../../core/ports/object-store.ts';
import type { CqlSession } from './cassandra-client.ts';

/**
 * One installation as its main row holds it: the document, the revision every
 * write compares and bumps, the write timestamp (µs) its copies carry, and
 * the indexes this revision took its copy out of.
 */
export interface InstallationRow {
  doc: StoredObject;
  rev: number;
  ts: number;
  retired: string[];
}

/**
 * The `installations` table: one partition per (app, shard), clustered by
 * objectId. Every write is a lightweight transaction on the revision.
 */
export class InstallationRows {
  readonly #session: CqlSession;
  readonly #shardOf: (objectId: string) => number;
  readonly #cql: ReturnType<typeof statements>;

  constructor(session: CqlSession, keyspace: string, shardOf: (objectId: string) => number) {
    this.#session = session;
    this.#shardOf = shardOf;
    this.#cql = statements(keyspace);
  }

  async read(appId: string, objectId: string): Promise<InstallationRow | null> {
    const result = await this.#session.execute(this.#cql.read, [appId, this.#shardOf(objectId), objectId]);
    const row = result.first() as types.Row | null;
    if (row === null) return null;
    const ts: unknown = row.get('ts');
    const retired: unknown = row.get('retired');
    return {
      doc: JSON.parse(String(row.get('doc'))) as StoredObject,
      rev: Number(row.get('rev')),
      ts: ts instanceof types.Long ? ts.toNumber() : 0,
      retired: Array.isArray(retired) ? retired.map(String) : [],
    };
  }

  /** Answers false when an installation with this id exists already. */
  async insert(appId: string, installation: StoredObject, ts: number): Promise<boolean> {
    const result = await this.#session.execute(this.#cql.insert, [
      appId,
      this.#shardOf(installation.objectId),
      installation.objectId,
      JSON.stringify(installation),
      ts,
    ]);
    return result.wasApplied();
  }

  /** Writes `installation` as revision `rev + 1` if the row is still at `rev`. */
  async replace(appId: string, installation: StoredObject, rev: number, ts: number, retired: readonly string[]): Promise<boolean> {
    const result = await this.#session.execute(this.#cql.replace, [
      JSON.stringify(installation),
      rev + 1,
      ts,
      [...retired],
      appId,
      this.#shardOf(installation.objectId),
      installation.objectId,
      rev,
    ]);
    return result.wasApplied();
  }

  /** Deletes the row if it is still at `rev`. */
  async delete(appId: string, objectId: string, rev: number): Promise<boolean> {
    const result = await this.#session.execute(this.#cql.delete, [appId, this.#shardOf(objectId), objectId, rev]);
    return result.wasApplied();
  }

  /** At most `limit` documents of one shard after `after`, in objectId order: one single-partition read. */
  async page(appId: string, shard: number, after: string, limit: number): Promise<StoredObject[]> {
    const result = await this.#session.execute(this.#cql.page, [appId, shard, after, limit], { fetchSize: limit });
    return result.rows.map((row) => JSON.parse(String(row.get('doc'))) as StoredObject);
  }
}

function statements(keyspace: string) {
  const table = `${keyspace}.installations`;
  const where = 'app_id = ? AND shard = ? AND object_id = ?';
  return {
    read: `SELECT doc, rev, ts, retired FROM ${table} WHERE ${where}`,
    insert: `INSERT INTO ${table} (app_id, shard, object_id, doc, rev, ts) VALUES (?, ?, ?, ?, 1, ?) IF NOT EXISTS`,
    replace: `UPDATE ${table} SET doc = ?, rev = ?, ts = ?, retired = ? WHERE ${where} IF rev = ?`,
    delete: `DELETE FROM ${table} WHERE ${where} IF rev = ?`,
    page: `SELECT doc FROM ${table} WHERE app_id = ? AND shard = ? AND object_id > ? LIMIT ?`,
  };
}
