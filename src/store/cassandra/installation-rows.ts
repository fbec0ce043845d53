import { types } from 'cassandra-driver';
import type { StoredObject } from '../../core/ports/object-store.ts';
import { installationRegistrationId } from '../installation-shards.ts';
import type { CqlSession, CqlStatement } from './cassandra-client.ts';
import { serialRead } from './consistency-levels.ts';
import type { IndexChanges } from './installation-index-entries.ts';

/**
 * One installation as its main row holds it: the document, the revision every
 * write compares and bumps, the write timestamp (µs) its index entries carry,
 * and the indexes this revision put it into and took it out of.
 */
export interface InstallationRow extends IndexChanges {
  doc: StoredObject;
  rev: number;
  ts: number;
  added: string[];
  retired: string[];
  /**
   * The registrationId whose entry the revision wrote, null for none: the
   * document's, unless the row was written by a version that kept no such
   * entries (or changed by one during a rolling upgrade).
   */
  registered: string | null;
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

  /** `serial`: a serial read, which first finishes a write to the row still in a lightweight transaction. */
  async read(appId: string, objectId: string, serial = false): Promise<InstallationRow | null> {
    const result = await this.#session.execute(this.#cql.read, [appId, this.#shardOf(objectId), objectId], serial ? { consistency: serialRead } : {});
    const row = result.first() as types.Row | null;
    return row === null ? null : installationRow(row);
  }

  /**
   * The documents of the listed installations of one shard, in objectId
   * order, those that no longer exist left out: one single-partition read
   * however many are listed (a page of an index).
   */
  async readMany(appId: string, shard: number, objectIds: readonly string[]): Promise<StoredObject[]> {
    if (objectIds.length === 0) return [];
    const result = await this.#session.execute(this.#cql.readMany, [appId, shard, [...objectIds]], { fetchSize: objectIds.length });
    return result.rows.map((row) => JSON.parse(String(row.get('doc'))) as StoredObject);
  }

  /** Answers false when an installation with this id exists already. `added`: the indexes it goes into. */
  async insert(appId: string, installation: StoredObject, ts: number, added: readonly string[]): Promise<boolean> {
    const { query, params } = this.insertStatement(appId, installation, JSON.stringify(installation), ts, added);
    return (await this.#session.execute(query, params)).wasApplied();
  }

  /** The insert of an installation (`IF NOT EXISTS`) as its document `doc`, to run alone or in a batch of its shard's partition. */
  insertStatement(appId: string, installation: StoredObject, doc: string, ts: number, added: readonly string[]): CqlStatement {
    return { query: this.#cql.insert, params: this.#insertParams(appId, installation, doc, ts, added) };
  }

  /**
   * The same insert without its condition, its cells written at `writtenAt`
   * (µs): for `herald import`, which has found the row absent and claimed its
   * device first (see CassandraBulkInserts).
   */
  plainInsertStatement(appId: string, installation: StoredObject, doc: string, ts: number, added: readonly string[], writtenAt: number): CqlStatement {
    return { query: this.#cql.plainInsert, params: [...this.#insertParams(appId, installation, doc, ts, added), writtenAt] };
  }

  #insertParams(appId: string, installation: StoredObject, doc: string, ts: number, added: readonly string[]): unknown[] {
    return [appId, this.#shardOf(installation.objectId), installation.objectId, doc, ts, [...added], installationRegistrationId(installation)];
  }

  /** Which of `objectIds` (all of one shard) are stored: one read of the shard's partition. */
  async present(appId: string, shard: number, objectIds: readonly string[]): Promise<Set<string>> {
    const result = await this.#session.execute(this.#cql.present, [appId, shard, [...objectIds]], { fetchSize: objectIds.length + 1 });
    return new Set(result.rows.map((row) => String(row.get('object_id'))));
  }

  /** The rows of the listed installations of one shard, those that no longer exist left out. */
  async readRows(appId: string, shard: number, objectIds: readonly string[]): Promise<InstallationRow[]> {
    const result = await this.#session.execute(this.#cql.readRows, [appId, shard, [...objectIds]], { fetchSize: objectIds.length + 1 });
    return result.rows.map((row) => installationRow(row));
  }

  /** Writes `installation` as revision `rev + 1` if the row is still at `rev`, with the index changes of that revision. */
  async replace(appId: string, installation: StoredObject, rev: number, ts: number, changes: IndexChanges): Promise<boolean> {
    const result = await this.#session.execute(this.#cql.replace, [
      JSON.stringify(installation),
      rev + 1,
      ts,
      [...changes.added],
      [...changes.retired],
      installationRegistrationId(installation),
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

function installationRow(row: types.Row): InstallationRow {
  const ts: unknown = row.get('ts');
  return {
    doc: JSON.parse(String(row.get('doc'))) as StoredObject,
    rev: Number(row.get('rev')),
    ts: ts instanceof types.Long ? ts.toNumber() : 0,
    added: strings(row.get('added')),
    retired: strings(row.get('retired')),
    registered: nullableString(row.get('registered')),
  };
}

function nullableString(value: unknown): string | null {
  return typeof value === 'string' ? value : null;
}

function strings(value: unknown): string[] {
  return Array.isArray(value) ? value.map(String) : [];
}

function statements(keyspace: string) {
  const table = `${keyspace}.installations`;
  const where = 'app_id = ? AND shard = ? AND object_id = ?';
  return {
    read: `SELECT doc, rev, ts, added, retired, registered FROM ${table} WHERE ${where}`,
    readRows: `SELECT doc, rev, ts, added, retired, registered FROM ${table} WHERE app_id = ? AND shard = ? AND object_id IN ?`,
    present: `SELECT object_id FROM ${table} WHERE app_id = ? AND shard = ? AND object_id IN ?`,
    readMany: `SELECT doc FROM ${table} WHERE app_id = ? AND shard = ? AND object_id IN ?`,
    insert: `INSERT INTO ${table} (app_id, shard, object_id, doc, rev, ts, added, registered) VALUES (?, ?, ?, ?, 1, ?, ?, ?) IF NOT EXISTS`,
    plainInsert: `INSERT INTO ${table} (app_id, shard, object_id, doc, rev, ts, added, registered) VALUES (?, ?, ?, ?, 1, ?, ?, ?) USING TIMESTAMP ?`,
    replace: `UPDATE ${table} SET doc = ?, rev = ?, ts = ?, added = ?, retired = ?, registered = ? WHERE ${where} IF rev = ?`,
    delete: `DELETE FROM ${table} WHERE ${where} IF rev = ?`,
    page: `SELECT doc FROM ${table} WHERE app_id = ? AND shard = ? AND object_id > ? LIMIT ?`,
  };
}
