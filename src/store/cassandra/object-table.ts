import type { types } from 'cassandra-driver';
import type { StoredObject } from '../../core/ports/object-store.ts';
import type { CqlSession, CqlStatement } from './cassandra-client.ts';
import { fnv1a } from '../../core/fnv1a.ts';
import { objectBuckets } from './cassandra-schema.ts';
import { serialRead } from './consistency-levels.ts';

/** An object row: the document and its revision, which every write compares and bumps. */
export interface ObjectRow {
  object: StoredObject;
  rev: number;
}

/**
 * The `objects` table: one partition per (app, class, bucket), so a class is
 * spread over `objectBuckets` partitions and scanned one page at a time.
 * Every write is a lightweight transaction on the row's revision.
 */
export class ObjectTable {
  readonly #session: CqlSession;
  readonly #table: string;
  readonly #fetchSize: number;

  constructor(session: CqlSession, keyspace: string, fetchSize: number) {
    this.#session = session;
    this.#table = `${keyspace}.objects`;
    this.#fetchSize = fetchSize;
  }

  /** `serial`: a serial read, which first finishes a write to the row still in a lightweight transaction. */
  async read(appId: string, className: string, objectId: string, serial = false): Promise<ObjectRow | null> {
    const result = await this.#session.execute(
      `SELECT doc, rev FROM ${this.#table} WHERE app_id = ? AND class = ? AND bucket = ? AND object_id = ?`,
      [appId, className, objectBucket(objectId), objectId],
      serial ? { consistency: serialRead } : {},
    );
    const row = result.first() as types.Row | null;
    return row === null ? null : { object: parseDoc(row), rev: Number(row.get('rev')) };
  }

  /** Answers false when an object with this id exists already. */
  async insert(appId: string, className: string, object: StoredObject): Promise<boolean> {
    const { query, params } = this.insertStatement(appId, className, object, JSON.stringify(object));
    return (await this.#session.execute(query, params)).wasApplied();
  }

  /** The insert of an object (`IF NOT EXISTS`) as its document `doc`, to run alone or in a batch of its partition. */
  insertStatement(appId: string, className: string, object: StoredObject, doc: string): CqlStatement {
    return {
      query: `INSERT INTO ${this.#table} (app_id, class, bucket, object_id, doc, rev) VALUES (?, ?, ?, ?, ?, 1) IF NOT EXISTS`,
      params: [appId, className, objectBucket(object.objectId), object.objectId, doc],
    };
  }

  /** Which of `objectIds` (all in one bucket) are stored: one read of their partition. */
  async present(appId: string, className: string, bucket: number, objectIds: readonly string[]): Promise<Set<string>> {
    const result = await this.#session.execute(
      `SELECT object_id FROM ${this.#table} WHERE app_id = ? AND class = ? AND bucket = ? AND object_id IN ?`,
      [appId, className, bucket, [...objectIds]],
      { fetchSize: objectIds.length + 1 },
    );
    return new Set(result.rows.map((row) => String(row.get('object_id'))));
  }

  /** Writes `object` as revision `rev + 1` if the row is still at `rev`. */
  async replace(appId: string, className: string, object: StoredObject, rev: number): Promise<boolean> {
    const result = await this.#session.execute(
      `UPDATE ${this.#table} SET doc = ?, rev = ? WHERE app_id = ? AND class = ? AND bucket = ? AND object_id = ? IF rev = ?`,
      [JSON.stringify(object), rev + 1, appId, className, objectBucket(object.objectId), object.objectId, rev],
    );
    return result.wasApplied();
  }

  /** Deletes the row if it is still at `rev`. */
  async delete(appId: string, className: string, objectId: string, rev: number): Promise<boolean> {
    const result = await this.#session.execute(
      `DELETE FROM ${this.#table} WHERE app_id = ? AND class = ? AND bucket = ? AND object_id = ? IF rev = ?`,
      [appId, className, objectBucket(objectId), objectId, rev],
    );
    return result.wasApplied();
  }

  /** Every object of a class, bucket after bucket, holding one page of rows at a time. */
  async *scan(appId: string, className: string): AsyncGenerator<StoredObject> {
    for (let bucket = 0; bucket < objectBuckets; bucket += 1) {
      const result = await this.#session.execute(
        `SELECT doc FROM ${this.#table} WHERE app_id = ? AND class = ? AND bucket = ?`,
        [appId, className, bucket],
        { fetchSize: this.#fetchSize },
      );
      for await (const row of result) yield parseDoc(row);
    }
  }
}

/** FNV-1a of the id's UTF-16 code units: stable across processes and versions. */
export function objectBucket(objectId: string): number {
  return fnv1a(objectId) % objectBuckets;
}

function parseDoc(row: types.Row): StoredObject {
  return JSON.parse(String(row.get('doc'))) as StoredObject;
}
