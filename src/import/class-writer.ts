import type { StoredObject } from '../core/ports/object-store.ts';
import type { ImportedClass } from './export-classes.ts';

/**
 * Rows a bulk write (Cassandra) takes at once, by class. With eight such
 * batches in flight, enough rows wait at once for the rows of one partition
 * to meet in one statement. A user in flight holds far more than an
 * installation (a claim per unique value, a larger document): eight batches
 * of 500 users run in a 128 MB heap (what Node gives itself in a 512 MiB
 * container), eight of 1,000 do not; eight of 1,000 installations do.
 */
export const bulkBatchRows = { _User: 500, _Installation: 1000 } as const;

/** What became of one row. */
export type RowOutcome =
  | { kind: 'imported' }
  /** An object with its objectId is already stored: it is left as it is (the app may have changed it since). */
  | { kind: 'present' }
  | { kind: 'rejected'; code: number; reason: string };

export interface WriteOptions {
  /** Decide every outcome by reading the store, and write nothing. */
  dryRun: boolean;
  /**
   * The rows may have been written by a run that stopped in the middle of
   * them: put right what such a write may have left half done (an
   * installation's channel and device-type index entries on Cassandra).
   */
  repair: boolean;
}

/** How the rows of one class are read and written. */
export interface ClassWriter {
  readonly className: ImportedClass;
  /** Rows written together (an installation batch for `insertMany`); 1 for users. */
  readonly batchSize: number;
  /** The stored object of an exported row; throws a HeraldError saying why the row cannot be taken. */
  prepare(row: Record<string, unknown>): StoredObject;
  /** The unique values the object would claim, as strings: rows sharing one are written in file order, so the first one wins. */
  keysOf(object: StoredObject): string[];
  /**
   * Writes the objects and answers an outcome for each, in order. Throws
   * only when the store fails (nothing can be said of the rows then).
   */
  write(objects: readonly StoredObject[], options: WriteOptions): Promise<RowOutcome[]>;
}
