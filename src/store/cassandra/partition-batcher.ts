import type { types } from 'cassandra-driver';
import { writeUnlogged, type CqlSession, type CqlStatement } from './cassandra-client.ts';

/** A row to write, and the group whose rows may share a batch: its partition, or for single-row partitions a group of them. */
export interface BatchedRow {
  group: string;
  statement: CqlStatement;
  /** Rows of its group in one batch at most, when fewer than the batcher's `maxRows`: a group of many partitions keeps its batches small. */
  maxRows?: number;
  /** The row's size in bytes, counted against the batcher's `maxBytes`; 0 when not given. */
  bytes?: number;
}

/**
 * A row written on a condition (a lightweight transaction). `key` is how a
 * refused batch's answer names the row; `judge` reads the row that stands
 * where it was to be written (undefined when none does): `held` when it is
 * this very write, applied by an earlier attempt whose answer was lost;
 * `free` when the condition holds, so the write may be sent again; `refused`
 * when it does not.
 */
export interface ConditionalRow extends BatchedRow {
  key: string;
  judge(current: types.Row | undefined): 'held' | 'free' | 'refused';
}

export type ConditionalOutcome = { applied: true } | { applied: false; current: types.Row | undefined };

interface Queued<R, T> {
  row: R;
  resolve(outcome: T): void;
  reject(error: unknown): void;
}

export interface BatcherOptions {
  /** Rows of one batch at most. */
  maxRows: number;
  /** Bytes of the rows of one batch at most (by their `bytes`); a row larger than this goes alone. Unbounded when not given. */
  maxBytes?: number;
  /** How many batches may be out at once (sent, or waiting for a permit): later rows wait and make bigger batches. */
  inFlight: () => number;
}

/**
 * Gathers rows by group and writes each group's rows as one unlogged batch,
 * forming a batch only when one may go out: while the store is busy, rows
 * wait and batches grow, so the statements per row fall as the load rises.
 * Groups are served in the order their waiting rows arrived.
 */
abstract class Batcher<R extends BatchedRow, T> {
  protected readonly session: CqlSession;
  readonly #options: BatcherOptions;
  readonly #groups = new Map<string, Queued<R, T>[]>();
  #out = 0;
  #scheduled = false;

  constructor(session: CqlSession, options: BatcherOptions) {
    this.session = session;
    this.#options = options;
  }

  protected enqueue(row: R): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      const group = this.#groups.get(row.group);
      if (group === undefined) this.#groups.set(row.group, [{ row, resolve, reject }]);
      else group.push({ row, resolve, reject });
      this.#schedule();
    });
  }

  /** Writes the rows of one batch and settles each of them. */
  protected abstract flush(rows: Queued<R, T>[]): Promise<void>;

  /** Drains once the current turn has queued what it will, so that rows queued together go together. */
  #schedule(): void {
    if (this.#scheduled) return;
    this.#scheduled = true;
    setImmediate(() => {
      this.#scheduled = false;
      this.#drain();
    });
  }

  #drain(): void {
    while (this.#out < Math.max(1, this.#options.inFlight()) && this.#groups.size > 0) {
      const [name, queued] = this.#groups.entries().next().value as [string, Queued<R, T>[]];
      const rows = queued.splice(0, this.#batchLength(queued));
      if (queued.length === 0) this.#groups.delete(name);
      this.#out += 1;
      void this.flush(rows)
        .catch((error: unknown) => {
          for (const entry of rows) entry.reject(error);
        })
        .finally(() => {
          this.#out -= 1;
          this.#drain();
        });
    }
  }

  /** How many of a group's first waiting rows make its next batch: within the row counts and the bytes allowed, one at least. */
  #batchLength(queued: readonly Queued<R, T>[]): number {
    const maxRows = Math.min(this.#options.maxRows, queued[0]?.row.maxRows ?? Number.POSITIVE_INFINITY);
    const maxBytes = this.#options.maxBytes ?? Number.POSITIVE_INFINITY;
    let bytes = 0;
    let length = 0;
    for (const entry of queued) {
      bytes += entry.row.bytes ?? 0;
      if (length === maxRows || (length > 0 && bytes > maxBytes)) break;
      length += 1;
    }
    return length;
  }
}

/** Rows written without a condition (index entries): a batch per group, all of it applied. */
export class PlainBatcher extends Batcher<BatchedRow, void> {
  write(row: BatchedRow): Promise<void> {
    return this.enqueue(row);
  }

  protected async flush(rows: Queued<BatchedRow, void>[]): Promise<void> {
    await writeUnlogged(this.session, rows.map((entry) => entry.row.statement));
    for (const entry of rows) entry.resolve();
  }
}

/**
 * Rows written on a condition, a group being one partition (a conditional
 * batch cannot span two). A batch applies whole or not at all; when it does
 * not, its answer holds the rows in the way: the rows they refuse (or that
 * turn out to be already written) are settled, and the others are sent again
 * as a smaller batch, so each row ends as if it had been written alone.
 */
export class ConditionalBatcher extends Batcher<ConditionalRow, ConditionalOutcome> {
  readonly #keyOf: (row: types.Row) => string;

  /** `keyOf`: a row of the table as `ConditionalRow.key` names it. */
  constructor(session: CqlSession, options: BatcherOptions, keyOf: (row: types.Row) => string) {
    super(session, options);
    this.#keyOf = keyOf;
  }

  write(row: ConditionalRow): Promise<ConditionalOutcome> {
    return this.enqueue(row);
  }

  protected async flush(rows: Queued<ConditionalRow, ConditionalOutcome>[]): Promise<void> {
    let remaining = rows;
    while (remaining.length > 0) {
      const [only] = remaining;
      const result =
        remaining.length === 1 && only !== undefined
          ? await this.session.execute(only.row.statement.query, only.row.statement.params, { prepare: true })
          : await this.session.batch(
              remaining.map((entry) => entry.row.statement),
              { logged: false, prepare: true },
            );
      if (result.wasApplied()) {
        for (const entry of remaining) entry.resolve({ applied: true });
        return;
      }
      // A statement alone answers the row in its way without its key (a condition's columns only, or none when there is no row).
      const alone = remaining.length === 1 ? ((result.first() as types.Row | null) ?? undefined) : undefined;
      const standing = new Map(result.rows.map((row) => [this.#keyOf(row), row]));
      const again: Queued<ConditionalRow, ConditionalOutcome>[] = [];
      for (const entry of remaining) {
        const current = remaining.length === 1 ? present(alone) : standing.get(entry.row.key);
        const verdict = entry.row.judge(current);
        if (verdict === 'held') entry.resolve({ applied: true });
        else if (verdict === 'refused') entry.resolve({ applied: false, current });
        else again.push(entry);
      }
      if (again.length === remaining.length) throw new Error('a conditional batch was refused, and its answer shows no row in the way');
      remaining = again;
    }
  }
}

/** A refused statement's answer row, or undefined when it holds only `[applied]` (no row stood there). */
function present(row: types.Row | undefined): types.Row | undefined {
  if (row === undefined) return undefined;
  return row.keys().some((column) => column !== '[applied]' && row.get(column) !== null) ? row : undefined;
}
