import type { StatementSync } from 'node:sqlite';
import type { Clock } from '../../core/clock.ts';
import { DuplicateValueError } from '../../core/errors.ts';
import type { PushDoc, PushStore, SliceReport, SliceResult } from '../../core/ports/push-store.ts';
import { encodeSliceReport, parsePushCounts, parseSliceReport, withTotals, type SliceRow } from '../push-record-totals.ts';
import type { SqliteSession } from './sqlite-session.ts';

/** Records per page of `scan`. */
const scanPage = 100;

/**
 * Push records in `push_records`, one result row per (push, slice) in
 * `push_results`, summed on every read. Old records and results go when the
 * scheduler calls `purgeOlderThan`.
 */
export class SqlitePushStore implements PushStore {
  readonly #session: SqliteSession;
  readonly #clock: Clock;
  readonly #sql: ReturnType<typeof prepareStatements>;

  constructor(session: SqliteSession, clock: Clock) {
    this.#session = session;
    this.#clock = clock;
    this.#sql = prepareStatements(session);
  }

  insert(appId: string, record: PushDoc): Promise<void> {
    return this.#session.run(() => {
      const inserted = this.#sql.insertRecord.run(appId, record.objectId, notificationIdOf(record), createdMs(record), JSON.stringify(record));
      if (inserted.changes === 0) throw new DuplicateValueError('objectId');
    });
  }

  get(appId: string, objectId: string): Promise<PushDoc | null> {
    return this.#session.run(() => {
      const row = this.#sql.selectRecord.get(appId, objectId);
      return row === undefined ? null : this.#withTotals(appId, parseDoc(row.doc));
    });
  }

  setFields(appId: string, objectId: string, fields: Record<string, unknown>, updatedAt: string): Promise<boolean> {
    return this.#session.run(() =>
      this.#session.transaction(() => {
        const row = this.#sql.selectRecord.get(appId, objectId);
        if (row === undefined) return false;
        const current = parseDoc(row.doc);
        // objectId, createdAt and notificationId are fixed at insert: the record is indexed by them.
        const { objectId: _id, createdAt: _created, notificationId: _notification, ...changes } = fields;
        const next: PushDoc = { ...current, ...changes, updatedAt };
        this.#sql.updateRecord.run(JSON.stringify(next), appId, objectId);
        return true;
      }),
    );
  }

  delete(appId: string, objectId: string): Promise<boolean> {
    return this.#session.run(() =>
      this.#session.transaction(() => {
        this.#sql.deleteResults.run(appId, objectId);
        return Number(this.#sql.deleteRecord.run(appId, objectId).changes) > 0;
      }),
    );
  }

  recordSlice(appId: string, pushId: string, result: SliceResult): Promise<void> {
    return this.#session.run(() => {
      this.#sql.upsertResult.run(appId, pushId, result.sliceKey, encodeSliceReport(result), result.final ? 1 : 0, this.#clock.now());
    });
  }

  getRecord(appId: string, objectId: string): Promise<PushDoc | null> {
    return this.#session.run(() => {
      const row = this.#sql.selectRecord.get(appId, objectId);
      return row === undefined ? null : parseDoc(row.doc);
    });
  }

  getSlice(appId: string, pushId: string, sliceKey: string): Promise<SliceReport | null> {
    return this.#session.run(() => {
      const row = this.#sql.selectResult.get(appId, pushId, sliceKey);
      return row === undefined ? null : parseSliceReport(String(row.counts), row.final === 1);
    });
  }

  findByNotificationId(appId: string, notificationId: string): Promise<PushDoc[]> {
    return this.#session.run(() => this.#sql.selectByNotification.all(appId, notificationId).map((row) => this.#withTotals(appId, parseDoc(row.doc))));
  }

  async *scan(appId: string): AsyncGenerator<PushDoc> {
    // Keyset pages, newest first: no cursor stays open between pages.
    let page = await this.#session.run(() => this.#sql.scanFirst.all(appId, scanPage));
    while (page.length > 0) {
      for (const row of page) yield await this.#session.run(() => this.#withTotals(appId, parseDoc(row.doc)));
      const last = page.at(-1);
      if (page.length < scanPage || last === undefined) return;
      page = await this.#session.run(() => this.#sql.scanAfter.all(appId, Number(last.created_ms), String(last.object_id), scanPage));
    }
  }

  purgeOlderThan(before: number): Promise<number> {
    return this.#session.run(() =>
      this.#session.transaction(() => {
        this.#sql.purgeResultsOfOld.run(before);
        // Results reported after their record was deleted have no record to go with.
        this.#sql.purgeOldResults.run(before);
        return Number(this.#sql.purgeRecords.run(before).changes);
      }),
    );
  }

  #withTotals(appId: string, record: PushDoc): PushDoc {
    const rows: SliceRow[] = this.#sql.selectResults
      .all(appId, record.objectId)
      .map((row) => ({ counts: parsePushCounts(String(row.counts)), final: row.final === 1 }));
    return withTotals(record, rows);
  }
}

function notificationIdOf(record: PushDoc): string | null {
  return typeof record.notificationId === 'string' ? record.notificationId : null;
}

function createdMs(record: PushDoc): number {
  const ms = Date.parse(record.createdAt);
  if (Number.isNaN(ms)) throw new Error(`push record ${record.objectId} has no valid createdAt`);
  return ms;
}

function parseDoc(doc: unknown): PushDoc {
  return JSON.parse(String(doc)) as PushDoc;
}

function prepareStatements(session: SqliteSession) {
  const prepare = (sql: string): StatementSync => session.db.prepare(sql);
  return {
    insertRecord: prepare(
      `INSERT INTO push_records (app_id, object_id, notification_id, created_ms, doc) VALUES (?, ?, ?, ?, ?)
       ON CONFLICT (app_id, object_id) DO NOTHING`,
    ),
    selectRecord: prepare('SELECT doc FROM push_records WHERE app_id = ? AND object_id = ?'),
    updateRecord: prepare('UPDATE push_records SET doc = ? WHERE app_id = ? AND object_id = ?'),
    deleteRecord: prepare('DELETE FROM push_records WHERE app_id = ? AND object_id = ?'),
    selectByNotification: prepare(
      'SELECT doc FROM push_records WHERE app_id = ? AND notification_id = ? ORDER BY created_ms DESC, object_id DESC',
    ),
    scanFirst: prepare('SELECT object_id, created_ms, doc FROM push_records WHERE app_id = ? ORDER BY created_ms DESC, object_id DESC LIMIT ?'),
    scanAfter: prepare(
      `SELECT object_id, created_ms, doc FROM push_records
       WHERE app_id = ? AND (created_ms, object_id) < (?, ?)
       ORDER BY created_ms DESC, object_id DESC LIMIT ?`,
    ),
    upsertResult: prepare(
      `INSERT INTO push_results (app_id, push_id, slice_key, counts, final, written_ms) VALUES (?, ?, ?, ?, ?, ?)
       ON CONFLICT (app_id, push_id, slice_key) DO UPDATE SET counts = excluded.counts, final = excluded.final, written_ms = excluded.written_ms`,
    ),
    selectResults: prepare('SELECT counts, final FROM push_results WHERE app_id = ? AND push_id = ?'),
    selectResult: prepare('SELECT counts, final FROM push_results WHERE app_id = ? AND push_id = ? AND slice_key = ?'),
    deleteResults: prepare('DELETE FROM push_results WHERE app_id = ? AND push_id = ?'),
    purgeResultsOfOld: prepare(
      `DELETE FROM push_results WHERE (app_id, push_id) IN (SELECT app_id, object_id FROM push_records WHERE created_ms < ?)`,
    ),
    purgeOldResults: prepare('DELETE FROM push_results WHERE written_ms < ?'),
    purgeRecords: prepare('DELETE FROM push_records WHERE created_ms < ?'),
  };
}
