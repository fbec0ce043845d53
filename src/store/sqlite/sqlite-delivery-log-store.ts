import type { StatementSync } from 'node:sqlite';
import {
  loggedOutcomes,
  type DeliveryLogStore,
  type LoggedOutcome,
  type LoggedSlice,
  type RangeKey,
  type RangeRow,
  type SliceEntries,
  type SliceSummary,
} from '../../core/ports/delivery-log-store.ts';
import type { SqliteSession } from './sqlite-session.ts';

/** The entries column of each outcome. */
const entryColumns: Record<LoggedOutcome, string> = {
  failed: 'failed_entries',
  invalidToken: 'invalid_token_entries',
  delivered: 'delivered_entries',
};

/**
 * The delivery log in `delivery_slices` (one row per slice, its entries by
 * outcome, replaced when the slice is redone) and `delivery_ranges` (per
 * installation bucket, one row per slice pointing at it). A slice's rows
 * are written in one transaction. Rows past their `expires_ms` go when the
 * scheduler's sweep calls `purgeExpired`.
 */
export class SqliteDeliveryLogStore implements DeliveryLogStore {
  readonly #session: SqliteSession;
  readonly #sql: ReturnType<typeof prepareStatements>;
  readonly #readSlice = new Map<string, StatementSync>();

  constructor(session: SqliteSession) {
    this.#session = session;
    this.#sql = prepareStatements(session);
  }

  writeSlice(appId: string, slice: LoggedSlice): Promise<void> {
    return this.#session.run(() =>
      this.#session.transaction(() => {
        const { counts, entries } = slice;
        this.#sql.upsertSlice.run(
          appId,
          slice.pushId,
          slice.sliceKey,
          slice.writtenAt,
          slice.expiresAt,
          counts.failed,
          counts.invalidToken,
          counts.delivered,
          entries.failed,
          entries.invalidToken,
          entries.delivered,
        );
        for (const range of slice.ranges) {
          this.#sql.upsertRange.run(appId, range.bucket, slice.writtenAt, slice.pushId, slice.sliceKey, range.low, range.high, range.filter, slice.expiresAt);
        }
      }),
    );
  }

  listSlices(appId: string, pushId: string, after: string | null, limit: number): Promise<SliceSummary[]> {
    return this.#session.run(() =>
      (after === null ? this.#sql.listSlices.all(appId, pushId, limit) : this.#sql.listSlicesAfter.all(appId, pushId, after, limit)).map((row) => ({
        sliceKey: String(row.slice_key),
        writtenAt: Number(row.written_ms),
        counts: { failed: Number(row.failed), invalidToken: Number(row.invalid_tokens), delivered: Number(row.delivered) },
      })),
    );
  }

  readSlice(appId: string, pushId: string, sliceKey: string, outcomes: readonly LoggedOutcome[]): Promise<SliceEntries | null> {
    return this.#session.run(() => {
      const wanted = loggedOutcomes.filter((outcome) => outcomes.includes(outcome));
      const row = this.#readStatement(wanted).get(appId, pushId, sliceKey);
      if (row === undefined) return null;
      const entries: SliceEntries['entries'] = {};
      for (const outcome of wanted) entries[outcome] = Buffer.from(row[entryColumns[outcome]] as Uint8Array);
      return { writtenAt: Number(row.written_ms), entries };
    });
  }

  listRanges(appId: string, bucket: number, options: { before: RangeKey | null; since: number; limit: number }): Promise<RangeRow[]> {
    return this.#session.run(() => {
      const { before, since, limit } = options;
      const rows =
        before === null
          ? this.#sql.listRanges.all(appId, bucket, since, limit)
          : this.#sql.listRangesBefore.all(appId, bucket, before.writtenAt, before.pushId, before.sliceKey, since, limit);
      return rows.map((row) => ({
        writtenAt: Number(row.written_ms),
        pushId: String(row.push_id),
        sliceKey: String(row.slice_key),
        low: String(row.low),
        high: String(row.high),
        filter: Buffer.from(row.filter as Uint8Array),
      }));
    });
  }

  purgeExpired(now: number): Promise<number> {
    return this.#session.run(() =>
      this.#session.transaction(() => {
        this.#sql.purgeRanges.run(now);
        return Number(this.#sql.purgeSlices.run(now).changes);
      }),
    );
  }

  /** A statement reading the entries of `outcomes` only: a large column not asked for is never read. */
  #readStatement(outcomes: readonly LoggedOutcome[]): StatementSync {
    const key = outcomes.join(',');
    let statement = this.#readSlice.get(key);
    if (statement === undefined) {
      const columns = ['written_ms', ...outcomes.map((outcome) => entryColumns[outcome])].join(', ');
      statement = this.#session.db.prepare(`SELECT ${columns} FROM delivery_slices WHERE app_id = ? AND push_id = ? AND slice_key = ?`);
      this.#readSlice.set(key, statement);
    }
    return statement;
  }
}

function prepareStatements(session: SqliteSession) {
  const prepare = (sql: string): StatementSync => session.db.prepare(sql);
  return {
    upsertSlice: prepare(
      `INSERT INTO delivery_slices (app_id, push_id, slice_key, written_ms, expires_ms, failed, invalid_tokens, delivered, failed_entries, invalid_token_entries, delivered_entries)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
       ON CONFLICT (app_id, push_id, slice_key) DO UPDATE SET
         written_ms = excluded.written_ms, expires_ms = excluded.expires_ms,
         failed = excluded.failed, invalid_tokens = excluded.invalid_tokens, delivered = excluded.delivered,
         failed_entries = excluded.failed_entries, invalid_token_entries = excluded.invalid_token_entries, delivered_entries = excluded.delivered_entries`,
    ),
    upsertRange: prepare(
      `INSERT INTO delivery_ranges (app_id, bucket, written_ms, push_id, slice_key, low, high, filter, expires_ms) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
       ON CONFLICT (app_id, bucket, written_ms, push_id, slice_key) DO UPDATE SET low = excluded.low, high = excluded.high, filter = excluded.filter, expires_ms = excluded.expires_ms`,
    ),
    listSlices: prepare(
      `SELECT slice_key, written_ms, failed, invalid_tokens, delivered FROM delivery_slices
       WHERE app_id = ? AND push_id = ? ORDER BY slice_key LIMIT ?`,
    ),
    listSlicesAfter: prepare(
      `SELECT slice_key, written_ms, failed, invalid_tokens, delivered FROM delivery_slices
       WHERE app_id = ? AND push_id = ? AND slice_key > ? ORDER BY slice_key LIMIT ?`,
    ),
    listRanges: prepare(
      `SELECT written_ms, push_id, slice_key, low, high, filter FROM delivery_ranges
       WHERE app_id = ? AND bucket = ? AND written_ms >= ?
       ORDER BY written_ms DESC, push_id DESC, slice_key DESC LIMIT ?`,
    ),
    listRangesBefore: prepare(
      `SELECT written_ms, push_id, slice_key, low, high, filter FROM delivery_ranges
       WHERE app_id = ? AND bucket = ? AND (written_ms, push_id, slice_key) < (?, ?, ?) AND written_ms >= ?
       ORDER BY written_ms DESC, push_id DESC, slice_key DESC LIMIT ?`,
    ),
    purgeRanges: prepare('DELETE FROM delivery_ranges WHERE expires_ms <= ?'),
    purgeSlices: prepare('DELETE FROM delivery_slices WHERE expires_ms <= ?'),
  };
}
