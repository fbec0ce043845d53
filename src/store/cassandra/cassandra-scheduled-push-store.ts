import { types } from 'cassandra-driver';
import { DuplicateValueError } from '../../core/errors.ts';
import { scheduledListCap, type ScheduledPush, type ScheduledPushStore } from '../../core/ports/scheduled-push-store.ts';
import { BoundedHeap } from '../../query/bounded-heap.ts';
import type { CqlSession } from './cassandra-client.ts';
import { pagedRows } from './paged-rows.ts';
import type { StoreSettings } from './store-settings.ts';

const minuteMs = 60_000;
/**
 * The low-water mark never passes the minute this long ago: an entry written
 * late into a minute the scheduler has already read (a past due time, a slow
 * writer) is still found. Entries are normally due at least a minute ahead.
 */
const settleMs = 5 * minuteMs;
/** A due-time row whose entry is missing this long after its due time is a leftover of a crash, and is removed. */
const leftoverMs = minuteMs;
const lowWaterSetting = 'scheduledLowWater';

/**
 * Scheduled pushes in two tables:
 *
 * - `scheduled_pushes` ((app), id): the entry itself, read for listing,
 *   `get` and `remove`; removal is `DELETE … IF` on it, so exactly one
 *   caller wins an entry.
 * - `scheduled_pushes_due` ((minute), dueAt, app, id): keys by due minute,
 *   the only table `due` reads, from the low-water mark (the oldest minute
 *   that may still hold entries, in `store_settings`) up to now.
 *
 * `add` writes the due-time row first and the entry last, so a crash leaves
 * at most a due-time row without an entry, which `due` skips and removes.
 * A due-time row is written at the timestamp of its due time and deleted one
 * microsecond after it, whichever node's clock says what: the delete of a
 * scheduler whose clock lags the API node's that wrote the row still wins
 * (with the nodes' timestamps, a leftover could outlive every delete and hold
 * the low-water mark back).
 */
export class CassandraScheduledPushStore implements ScheduledPushStore {
  readonly #session: CqlSession;
  readonly #settings: StoreSettings;
  readonly #fetchSize: number;
  readonly #cql: ReturnType<typeof statements>;

  constructor(session: CqlSession, keyspace: string, settings: StoreSettings, fetchSize: number) {
    this.#session = session;
    this.#settings = settings;
    this.#fetchSize = fetchSize;
    this.#cql = statements(keyspace);
  }

  async add(entry: ScheduledPush): Promise<void> {
    const minute = minuteOf(entry.dueAt);
    await this.#session.execute(this.#cql.insertDue, [minute, entry.dueAt, entry.appId, entry.id, dueTimestamp(entry.dueAt)]);
    await this.#lowerMark(minute);
    const inserted = await this.#session.execute(this.#cql.insertEntry, [
      entry.appId,
      entry.id,
      entry.dueAt,
      entry.pushId,
      entry.createdAt,
      JSON.stringify(entry.message),
    ]);
    if (inserted.wasApplied()) return;
    // The id is taken; take back our due-time row unless it is the other entry's too.
    const existing = inserted.first() as types.Row | null;
    if (existing === null || numberOf(existing.get('due_at')) !== entry.dueAt) {
      await this.#session.execute(this.#cql.deleteDue, [dueTimestamp(entry.dueAt) + 1, minute, entry.dueAt, entry.appId, entry.id]);
    }
    throw new DuplicateValueError('id');
  }

  /** Reads the app's partition a page at a time, keeping only the soonest `scheduledListCap`. */
  async listForApp(appId: string): Promise<ScheduledPush[]> {
    const soonest = new BoundedHeap<ScheduledPush>(scheduledListCap, (a, b) => a.dueAt - b.dueAt || a.id - b.id);
    for await (const row of pagedRows(this.#session, this.#cql.selectApp, [appId], this.#fetchSize)) soonest.offer(toEntry(row));
    return soonest.sorted();
  }

  async get(appId: string, id: number): Promise<ScheduledPush | null> {
    const result = await this.#session.execute(this.#cql.selectEntry, [appId, id]);
    const row = result.first() as types.Row | null;
    return row === null ? null : toEntry(row);
  }

  async remove(appId: string, id: number): Promise<ScheduledPush | null> {
    const entry = await this.get(appId, id);
    if (entry === null) return null;
    const removed = await this.#session.execute(this.#cql.deleteEntry, [appId, id, entry.dueAt, entry.pushId]);
    if (!removed.wasApplied()) return null;
    await this.#session.execute(this.#cql.deleteDue, [dueTimestamp(entry.dueAt) + 1, minuteOf(entry.dueAt), entry.dueAt, appId, id]);
    return entry;
  }

  async due(now: number, limit: number): Promise<ScheduledPush[]> {
    const mark = await this.#settings.read(lowWaterSetting);
    if (mark === null || limit < 1) return [];
    const from = Number(mark);
    const nowMinute = minuteOf(now);
    const entries: ScheduledPush[] = [];
    // The first minute read that still holds something: the mark may not pass it.
    let firstHeld: number | null = null;
    let minute = from;
    for (; minute <= nowMinute && entries.length < limit; minute += 1) {
      for await (const key of pagedRows(this.#session, this.#cql.selectDue, [minute, now], this.#fetchSize)) {
        const [dueAt, appId, id] = [numberOf(key.get('due_at')), String(key.get('app_id')), numberOf(key.get('id'))];
        const entry = await this.get(appId, id);
        if (entry !== null && entry.dueAt === dueAt) {
          entries.push(entry);
        } else if (dueAt < now - leftoverMs) {
          await this.#session.execute(this.#cql.deleteDue, [dueTimestamp(dueAt) + 1, minute, dueAt, appId, id]);
          continue;
        }
        // Kept, or possibly an add still on its way: this minute is not done.
        firstHeld ??= minute;
        if (entries.length >= limit) break;
      }
      // A minute not yet over may still receive entries due later in it.
      if (minute === nowMinute) firstHeld ??= minute;
    }
    const advanced = Math.min(firstHeld ?? minute, minuteOf(now - settleMs));
    if (advanced > from) await this.#settings.replace(lowWaterSetting, mark, String(advanced));
    return entries;
  }

  /** Moves the low-water mark down to `minute` if it is above it (or sets it when there is none). */
  async #lowerMark(minute: number): Promise<void> {
    for (;;) {
      const mark = await this.#settings.read(lowWaterSetting);
      if (mark === null) {
        if ((await this.#settings.settle(lowWaterSetting, String(minute))) === String(minute)) return;
        continue;
      }
      if (Number(mark) <= minute) return;
      if (await this.#settings.replace(lowWaterSetting, mark, String(minute))) return;
    }
  }
}

function minuteOf(ms: number): number {
  return Math.floor(ms / minuteMs);
}

function numberOf(value: unknown): number {
  return value instanceof types.Long ? value.toNumber() : Number(value);
}

function toEntry(row: types.Row): ScheduledPush {
  return {
    id: numberOf(row.get('id')),
    appId: String(row.get('app_id')),
    pushId: String(row.get('push_id')),
    dueAt: numberOf(row.get('due_at')),
    createdAt: String(row.get('created_at')),
    message: JSON.parse(String(row.get('message'))) as Record<string, unknown>,
  };
}

/** The write timestamp (microseconds) of a due-time row: its due time, the same from every node. */
function dueTimestamp(dueAt: number): number {
  return dueAt * 1000;
}

function statements(keyspace: string) {
  const entries = `${keyspace}.scheduled_pushes`;
  const due = `${keyspace}.scheduled_pushes_due`;
  const columns = 'app_id, id, due_at, push_id, created_at, message';
  return {
    insertEntry: `INSERT INTO ${entries} (${columns}) VALUES (?, ?, ?, ?, ?, ?) IF NOT EXISTS`,
    selectEntry: `SELECT ${columns} FROM ${entries} WHERE app_id = ? AND id = ?`,
    selectApp: `SELECT ${columns} FROM ${entries} WHERE app_id = ?`,
    deleteEntry: `DELETE FROM ${entries} WHERE app_id = ? AND id = ? IF due_at = ? AND push_id = ?`,
    insertDue: `INSERT INTO ${due} (bucket, due_at, app_id, id) VALUES (?, ?, ?, ?) USING TIMESTAMP ?`,
    selectDue: `SELECT due_at, app_id, id FROM ${due} WHERE bucket = ? AND due_at <= ?`,
    deleteDue: `DELETE FROM ${due} USING TIMESTAMP ? WHERE bucket = ? AND due_at = ? AND app_id = ? AND id = ?`,
  };
}
