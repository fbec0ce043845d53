import type { types } from 'cassandra-driver';
import type { Clock } from '../../core/clock.ts';
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
import { type CqlSession, unloggedBatchPartitions, writeUnlogged } from './cassandra-client.ts';
import { chunks } from '../../core/chunks.ts';

const dayMs = 86_400_000;
/** Retention is at most 90 days (the config's bound): no range row is older, so no older day partition is read. */
const oldestDays = 92;

const entryColumns: Record<LoggedOutcome, string> = {
  failed: 'failed_entries',
  invalidToken: 'invalid_token_entries',
  delivered: 'delivered_entries',
};

/**
 * The delivery log, every row written with the TTL of its `expiresAt` and
 * never deleted (docs/cassandra-store.md, "The delivery log"):
 *
 * - `delivery_slices` ((app, push, slice)): a slice's entries by outcome,
 *   one small partition per slice, overwritten when the slice is redone;
 * - `delivery_push_slices` ((app, push), slice): the slices of a push with
 *   their counts and time, one row per slice (a push of 1,000,000 devices in
 *   slices of 1,000 is 1,000 rows);
 * - `delivery_ranges` ((app, installation bucket, day), time desc): per slice
 *   and installation bucket, the lowest and highest objectId and a filter,
 *   by day of writing, so no partition outgrows a day of one bucket.
 *
 * A slice's rows are three independent writes: readers check that a range
 * row and a slice row carry the same time, and skip a range of an earlier
 * run.
 */
export class CassandraDeliveryLogStore implements DeliveryLogStore {
  readonly #session: CqlSession;
  readonly #clock: Clock;
  readonly #cql: ReturnType<typeof statements>;

  constructor(session: CqlSession, keyspace: string, clock: Clock) {
    this.#session = session;
    this.#clock = clock;
    this.#cql = statements(keyspace);
  }

  async writeSlice(appId: string, slice: LoggedSlice): Promise<void> {
    const ttl = Math.max(1, Math.ceil((slice.expiresAt - slice.writtenAt) / 1000));
    const writtenAt = new Date(slice.writtenAt);
    const { counts, entries } = slice;
    const day = dayOf(slice.writtenAt);
    await Promise.all([
      this.#session.execute(this.#cql.insertSlice, [appId, slice.pushId, slice.sliceKey, writtenAt, entries.failed, entries.invalidToken, entries.delivered, ttl]),
      this.#session.execute(this.#cql.insertSummary, [appId, slice.pushId, slice.sliceKey, writtenAt, counts.failed, counts.invalidToken, counts.delivered, ttl]),
      // A range row per installation bucket the slice holds (up to 64, mostly one), each its own partition: a few to a batch, not a request each.
      ...chunks(slice.ranges, unloggedBatchPartitions).map((ranges) =>
        writeUnlogged(
          this.#session,
          ranges.map((range) => ({ query: this.#cql.insertRange, params: [appId, range.bucket, day, writtenAt, slice.pushId, slice.sliceKey, range.low, range.high, range.filter, ttl] })),
        ),
      ),
    ]);
  }

  async listSlices(appId: string, pushId: string, after: string | null, limit: number): Promise<SliceSummary[]> {
    const result =
      after === null
        ? await this.#session.execute(this.#cql.listSlices, [appId, pushId, limit])
        : await this.#session.execute(this.#cql.listSlicesAfter, [appId, pushId, after, limit]);
    return result.rows.map((row) => ({
      sliceKey: String(row.get('slice_key')),
      writtenAt: (row.get('written_at') as Date).getTime(),
      counts: { failed: Number(row.get('failed')), invalidToken: Number(row.get('invalid_tokens')), delivered: Number(row.get('delivered')) },
    }));
  }

  async readSlice(appId: string, pushId: string, sliceKey: string, outcomes: readonly LoggedOutcome[]): Promise<SliceEntries | null> {
    const wanted = loggedOutcomes.filter((outcome) => outcomes.includes(outcome));
    const columns = ['written_at', ...wanted.map((outcome) => entryColumns[outcome])].join(', ');
    const row = (await this.#session.execute(`SELECT ${columns} FROM ${this.#cql.slices} WHERE app_id = ? AND push_id = ? AND slice_key = ?`, [appId, pushId, sliceKey])).first() as types.Row | null;
    const writtenAt: unknown = row?.get('written_at');
    if (row === null || !(writtenAt instanceof Date)) return null;
    const entries: SliceEntries['entries'] = {};
    for (const outcome of wanted) {
      const blob: unknown = row.get(entryColumns[outcome]);
      entries[outcome] = Buffer.isBuffer(blob) ? blob : Buffer.alloc(0);
    }
    return { writtenAt: writtenAt.getTime(), entries };
  }

  /** Day partitions from the day of `before` (or tomorrow) back to the day of `since`, each newest first. */
  async listRanges(appId: string, bucket: number, options: { before: RangeKey | null; since: number; limit: number }): Promise<RangeRow[]> {
    const { before, since, limit } = options;
    const rows: RangeRow[] = [];
    const newest = dayOf(before?.writtenAt ?? this.#clock.now() + dayMs);
    const oldest = Math.max(dayOf(since), dayOf(this.#clock.now()) - oldestDays);
    for (let day = newest; day >= oldest && rows.length < limit; day -= 1) {
      const wanted = limit - rows.length;
      const result =
        before !== null && day === dayOf(before.writtenAt)
          ? await this.#session.execute(this.#cql.listRangesBefore, [appId, bucket, day, new Date(before.writtenAt), before.pushId, before.sliceKey, wanted])
          : await this.#session.execute(this.#cql.listRanges, [appId, bucket, day, wanted]);
      for (const row of result.rows) {
        const writtenAt = (row.get('written_at') as Date).getTime();
        if (writtenAt < since) return rows;
        rows.push({
          writtenAt,
          pushId: String(row.get('push_id')),
          sliceKey: String(row.get('slice_key')),
          low: String(row.get('low')),
          high: String(row.get('high')),
          filter: row.get('filter') as Buffer,
        });
      }
    }
    return rows;
  }

  /** Rows expire by their TTL. */
  purgeExpired(_now: number): Promise<number> {
    return Promise.resolve(0);
  }
}

function dayOf(ms: number): number {
  return Math.floor(ms / dayMs);
}

function statements(keyspace: string) {
  const slices = `${keyspace}.delivery_slices`;
  const summaries = `${keyspace}.delivery_push_slices`;
  const ranges = `${keyspace}.delivery_ranges`;
  const summaryColumns = 'slice_key, written_at, failed, invalid_tokens, delivered';
  const rangeColumns = 'written_at, push_id, slice_key, low, high, filter';
  return {
    slices,
    insertSlice: `INSERT INTO ${slices} (app_id, push_id, slice_key, written_at, failed_entries, invalid_token_entries, delivered_entries) VALUES (?, ?, ?, ?, ?, ?, ?) USING TTL ?`,
    insertSummary: `INSERT INTO ${summaries} (app_id, push_id, slice_key, written_at, failed, invalid_tokens, delivered) VALUES (?, ?, ?, ?, ?, ?, ?) USING TTL ?`,
    insertRange: `INSERT INTO ${ranges} (app_id, bucket, day, written_at, push_id, slice_key, low, high, filter) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) USING TTL ?`,
    listSlices: `SELECT ${summaryColumns} FROM ${summaries} WHERE app_id = ? AND push_id = ? LIMIT ?`,
    listSlicesAfter: `SELECT ${summaryColumns} FROM ${summaries} WHERE app_id = ? AND push_id = ? AND slice_key > ? LIMIT ?`,
    listRanges: `SELECT ${rangeColumns} FROM ${ranges} WHERE app_id = ? AND bucket = ? AND day = ? LIMIT ?`,
    listRangesBefore: `SELECT ${rangeColumns} FROM ${ranges} WHERE app_id = ? AND bucket = ? AND day = ? AND (written_at, push_id, slice_key) < (?, ?, ?) LIMIT ?`,
  };
}
