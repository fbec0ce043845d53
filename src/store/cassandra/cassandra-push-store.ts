import type { types } from 'cassandra-driver';
import type { Clock } from '../../core/clock.ts';
import { DuplicateValueError } from '../../core/errors.ts';
import type { PushDoc, PushStore, SliceReport, SliceResult } from '../../core/ports/push-store.ts';
import { encodeSliceReport, parsePushCounts, parseSliceReport, withTotals, type SliceRow } from '../push-record-totals.ts';
import type { CqlSession } from './cassandra-client.ts';
import { pagedRows } from './paged-rows.ts';

const dayMs = 86_400_000;
/** Records read at once while `scan` or `findByNotificationId` turns keys into records. */
const readBatch = 50;
/** Fields fixed at insert: the listing tables are keyed by them. */
const fixedFields = new Set(['objectId', 'createdAt', 'notificationId']);

/**
 * Push records and their results, every row written with a TTL of the
 * retention time so that Cassandra drops them by itself:
 *
 * - `push_records` ((app, objectId)): the document the API wrote, plus a map
 *   of fields set later (status, expectedTasks, …), each replaced on its own
 *   so that concurrent status changes do not overwrite each other. Insert,
 *   setFields and delete are lightweight transactions on this row, so a
 *   field set after a delete cannot bring the record back.
 * - `push_results` ((app, pushId), sliceKey): one row per reported slice,
 *   overwritten by a redelivery and summed by every read.
 * - `push_records_by_day` ((app, day), createdAt desc) and
 *   `push_records_by_notification` ((app, notificationId), createdAt desc):
 *   keys only, for listing newest first; a key whose record is gone is skipped.
 */
export class CassandraPushStore implements PushStore {
  readonly #session: CqlSession;
  readonly #clock: Clock;
  readonly #retentionMs: number;
  readonly #ttlSeconds: number;
  readonly #fetchSize: number;
  readonly #cql: ReturnType<typeof statements>;

  constructor(session: CqlSession, keyspace: string, options: { clock: Clock; retentionMs: number; fetchSize: number }) {
    this.#session = session;
    this.#clock = options.clock;
    this.#retentionMs = options.retentionMs;
    this.#ttlSeconds = Math.max(1, Math.ceil(options.retentionMs / 1000));
    this.#fetchSize = options.fetchSize;
    this.#cql = statements(keyspace);
  }

  async insert(appId: string, record: PushDoc): Promise<void> {
    const keys = listingKeys(record);
    // The listing rows go first: one left by a crash points at nothing and is skipped.
    await this.#writeListing(appId, record.objectId, keys);
    const inserted = await this.#session.execute(this.#cql.insertRecord, [appId, record.objectId, JSON.stringify(record), this.#ttlSeconds]);
    if (inserted.wasApplied()) return;
    const existing = inserted.first() as types.Row | null;
    const theirs = existing === null ? null : listingKeys(JSON.parse(String(existing.get('doc'))) as PushDoc);
    await this.#deleteListing(appId, record.objectId, {
      createdAt: theirs?.createdAt.getTime() === keys.createdAt.getTime() ? null : keys.createdAt,
      notificationId: theirs?.notificationId === keys.notificationId ? null : keys.notificationId,
    });
    throw new DuplicateValueError('objectId');
  }

  async get(appId: string, objectId: string): Promise<PushDoc | null> {
    const record = await this.#readRecord(appId, objectId);
    if (record === null) return null;
    const rows: SliceRow[] = [];
    for await (const row of pagedRows(this.#session, this.#cql.selectResults, [appId, objectId], this.#fetchSize)) rows.push({ counts: parsePushCounts(String(row.get('counts'))), final: row.get('final') === true });
    return withTotals(record, rows);
  }

  async setFields(appId: string, objectId: string, fields: Record<string, unknown>, updatedAt: string): Promise<boolean> {
    const changes: Record<string, string> = {};
    for (const [field, value] of Object.entries({ ...fields, updatedAt })) {
      const json = JSON.stringify(value);
      if (!fixedFields.has(field) && json !== undefined) changes[field] = json;
    }
    const result = await this.#session.execute(this.#cql.setFields, [this.#ttlSeconds, changes, appId, objectId]);
    return result.wasApplied();
  }

  async delete(appId: string, objectId: string): Promise<boolean> {
    const record = await this.#readRecord(appId, objectId);
    if (record === null) return false;
    const deleted = await this.#session.execute(this.#cql.deleteRecord, [appId, objectId]);
    if (!deleted.wasApplied()) return false;
    const keys = listingKeys(record);
    await Promise.all([this.#deleteListing(appId, objectId, keys), this.#session.execute(this.#cql.deleteResults, [appId, objectId])]);
    return true;
  }

  async recordSlice(appId: string, pushId: string, result: SliceResult): Promise<void> {
    await this.#session.execute(this.#cql.upsertResult, [appId, pushId, result.sliceKey, encodeSliceReport(result), result.final, this.#ttlSeconds]);
  }

  getRecord(appId: string, objectId: string): Promise<PushDoc | null> {
    return this.#readRecord(appId, objectId);
  }

  async getSlice(appId: string, pushId: string, sliceKey: string): Promise<SliceReport | null> {
    const row = (await this.#session.execute(this.#cql.selectResult, [appId, pushId, sliceKey])).first() as types.Row | null;
    return row === null ? null : parseSliceReport(String(row.get('counts')), row.get('final') === true);
  }

  async findByNotificationId(appId: string, notificationId: string): Promise<PushDoc[]> {
    const keys = pagedRows(this.#session, this.#cql.selectByNotification, [appId, notificationId], this.#fetchSize);
    const records: PushDoc[] = [];
    for await (const record of this.#records(appId, keys)) records.push(record);
    return records;
  }

  /** Day partitions from tomorrow back to the retention horizon, each newest first. */
  async *scan(appId: string): AsyncGenerator<PushDoc> {
    const now = this.#clock.now();
    const newest = dayOf(now + dayMs);
    const oldest = dayOf(now - this.#retentionMs);
    for (let day = newest; day >= oldest; day -= 1) {
      yield* this.#records(appId, pagedRows(this.#session, this.#cql.selectDay, [appId, day], this.#fetchSize));
    }
  }

  /** Records expire by their TTL. */
  purgeOlderThan(_before: number): Promise<number> {
    return Promise.resolve(0);
  }

  /** The records named by rows of a listing table, read a batch at a time; missing ones are skipped. */
  async *#records(appId: string, keys: AsyncIterable<types.Row>): AsyncGenerator<PushDoc> {
    let batch: string[] = [];
    const flush = async (): Promise<PushDoc[]> => {
      const records = await Promise.all(batch.map((objectId) => this.get(appId, objectId)));
      batch = [];
      return records.filter((record): record is PushDoc => record !== null);
    };
    for await (const row of keys) {
      batch.push(String(row.get('object_id')));
      if (batch.length >= readBatch) yield* await flush();
    }
    yield* await flush();
  }

  async #readRecord(appId: string, objectId: string): Promise<PushDoc | null> {
    const result = await this.#session.execute(this.#cql.selectRecord, [appId, objectId]);
    const row = result.first() as types.Row | null;
    const doc: unknown = row?.get('doc');
    // A row without its document holds only fields that outlived it.
    if (row === null || typeof doc !== 'string') return null;
    const record = JSON.parse(doc) as PushDoc;
    const fields: unknown = row.get('fields');
    if (fields !== null && typeof fields === 'object') {
      for (const [field, json] of Object.entries(fields as Record<string, string>)) record[field] = JSON.parse(json) as unknown;
    }
    return record;
  }

  async #writeListing(appId: string, objectId: string, keys: ListingKeys): Promise<void> {
    await Promise.all([
      this.#session.execute(this.#cql.insertDay, [appId, dayOf(keys.createdAt.getTime()), keys.createdAt, objectId, this.#ttlSeconds]),
      keys.notificationId === null
        ? undefined
        : this.#session.execute(this.#cql.insertByNotification, [appId, keys.notificationId, keys.createdAt, objectId, this.#ttlSeconds]),
    ]);
  }

  async #deleteListing(appId: string, objectId: string, keys: { createdAt: Date | null; notificationId: string | null }): Promise<void> {
    const { createdAt, notificationId } = keys;
    await Promise.all([
      createdAt === null ? undefined : this.#session.execute(this.#cql.deleteDay, [appId, dayOf(createdAt.getTime()), createdAt, objectId]),
      createdAt === null || notificationId === null
        ? undefined
        : this.#session.execute(this.#cql.deleteByNotification, [appId, notificationId, createdAt, objectId]),
    ]);
  }
}

interface ListingKeys {
  createdAt: Date;
  notificationId: string | null;
}

function listingKeys(record: PushDoc): ListingKeys {
  const createdMs = Date.parse(record.createdAt);
  if (Number.isNaN(createdMs)) throw new Error(`push record ${record.objectId} has no valid createdAt`);
  return { createdAt: new Date(createdMs), notificationId: typeof record.notificationId === 'string' ? record.notificationId : null };
}

function dayOf(ms: number): number {
  return Math.floor(ms / dayMs);
}

function statements(keyspace: string) {
  const records = `${keyspace}.push_records`;
  const results = `${keyspace}.push_results`;
  const byDay = `${keyspace}.push_records_by_day`;
  const byNotification = `${keyspace}.push_records_by_notification`;
  return {
    insertRecord: `INSERT INTO ${records} (app_id, object_id, doc) VALUES (?, ?, ?) IF NOT EXISTS USING TTL ?`,
    selectRecord: `SELECT doc, fields FROM ${records} WHERE app_id = ? AND object_id = ?`,
    setFields: `UPDATE ${records} USING TTL ? SET fields = fields + ? WHERE app_id = ? AND object_id = ? IF EXISTS`,
    deleteRecord: `DELETE FROM ${records} WHERE app_id = ? AND object_id = ? IF EXISTS`,
    upsertResult: `INSERT INTO ${results} (app_id, push_id, slice_key, counts, final) VALUES (?, ?, ?, ?, ?) USING TTL ?`,
    selectResults: `SELECT counts, final FROM ${results} WHERE app_id = ? AND push_id = ?`,
    selectResult: `SELECT counts, final FROM ${results} WHERE app_id = ? AND push_id = ? AND slice_key = ?`,
    deleteResults: `DELETE FROM ${results} WHERE app_id = ? AND push_id = ?`,
    insertDay: `INSERT INTO ${byDay} (app_id, day, created_at, object_id) VALUES (?, ?, ?, ?) USING TTL ?`,
    selectDay: `SELECT object_id FROM ${byDay} WHERE app_id = ? AND day = ?`,
    deleteDay: `DELETE FROM ${byDay} WHERE app_id = ? AND day = ? AND created_at = ? AND object_id = ?`,
    insertByNotification: `INSERT INTO ${byNotification} (app_id, notification_id, created_at, object_id) VALUES (?, ?, ?, ?) USING TTL ?`,
    selectByNotification: `SELECT object_id FROM ${byNotification} WHERE app_id = ? AND notification_id = ?`,
    deleteByNotification: `DELETE FROM ${byNotification} WHERE app_id = ? AND notification_id = ? AND created_at = ? AND object_id = ?`,
  };
}
