/** The delivery log's outcome groups, as stored: each slice keeps its entries of each group apart, so a filter reads only its own. */
export const loggedOutcomes = ['failed', 'invalidToken', 'delivered'] as const;

export type LoggedOutcome = (typeof loggedOutcomes)[number];

/** Devices of a slice by final outcome: all of them, whether their entries were kept or not (sampled successes). */
export type OutcomeCounts = Record<LoggedOutcome, number>;

/**
 * Where a slice's entries of one installation bucket lie: the lowest and
 * highest installation objectId among them and a membership filter of them,
 * so that an installation's entries are found by reading the few slices
 * that may hold it rather than every slice.
 */
export interface InstallationRange {
  /** The installation bucket (`deliveryLogBucket` of the objectId). */
  bucket: number;
  low: string;
  high: string;
  /** A Bloom filter of the bucket's installations in the slice (the domain's format). */
  filter: Buffer;
}

/** One slice's part of the delivery log, written whole: it replaces what an earlier run of the same slice wrote. */
export interface LoggedSlice {
  pushId: string;
  /** `<taskId>/<slice>`. */
  sliceKey: string;
  /** When the slice ended, Unix ms: a range row counts only beside the slice row of the same time. */
  writtenAt: number;
  /** When the rows may go, Unix ms (the app's retention after `writtenAt`). */
  expiresAt: number;
  counts: OutcomeCounts;
  /** The kept entries of each outcome, encoded by the domain (`encodeEntries`); an empty buffer when none. */
  entries: Record<LoggedOutcome, Buffer>;
  /** One per installation bucket the kept entries fall in. */
  ranges: readonly InstallationRange[];
}

/** A slice as listed for a push: its counts and time, without its entries. */
export interface SliceSummary {
  sliceKey: string;
  writtenAt: number;
  counts: OutcomeCounts;
}

/** One slice's stored entries of the outcomes asked for. */
export interface SliceEntries {
  writtenAt: number;
  entries: Partial<Record<LoggedOutcome, Buffer>>;
}

/** The key a listing of ranges goes on after: ranges come newest first. */
export interface RangeKey {
  writtenAt: number;
  pushId: string;
  sliceKey: string;
}

/** A slice that may hold an installation of a bucket. */
export interface RangeRow extends RangeKey {
  low: string;
  high: string;
  filter: Buffer;
}

/**
 * The delivery log's rows: per push, one row per slice holding its entries
 * by outcome, and per installation bucket, one range row per slice and
 * bucket pointing at the slice. Rows expire at their `expiresAt` (Cassandra
 * by TTL on insert; SQLite by `purgeExpired`). The store neither reads nor
 * decodes entries: encoding, filters and sampling are the domain's
 * (`src/push/delivery-log/`).
 */
export interface DeliveryLogStore {
  /** Writes one slice's rows, replacing those of an earlier run of the slice (range rows of an earlier run stay and point at a newer slice row: readers skip them). */
  writeSlice(appId: string, slice: LoggedSlice): Promise<void>;
  /** The push's slices in `sliceKey` order, after `after` (exclusive), at most `limit`. */
  listSlices(appId: string, pushId: string, after: string | null, limit: number): Promise<SliceSummary[]>;
  /** One slice's entries of `outcomes`, or null when the slice has no row. */
  readSlice(appId: string, pushId: string, sliceKey: string, outcomes: readonly LoggedOutcome[]): Promise<SliceEntries | null>;
  /**
   * The range rows of an installation bucket, newest first (by `writtenAt`,
   * then `pushId` and `sliceKey` descending), strictly before `before` when
   * given, written at or after `since` (Unix ms), at most `limit`.
   */
  listRanges(appId: string, bucket: number, options: { before: RangeKey | null; since: number; limit: number }): Promise<RangeRow[]>;
  /** Removes rows whose `expiresAt` has passed and answers how many slices went; stores whose rows expire by themselves answer 0. */
  purgeExpired(now: number): Promise<number>;
}
