import type { StoredObject } from './object-store.ts';

/** Delivery counters of a push record (SPEC-NOTES.md, push records). */
export interface PushCounts {
  /** Valid targets matched. */
  devices: number;
  successes: number;
  errors: number;
  invalidTokens: number;
  iosSuccesses: number;
  androidSuccesses: number;
  /** A count per gateway reason, e.g. `{BadDeviceToken: 3}`. */
  errorReasons: Record<string, number>;
}

export type PushStatus = 'scheduled' | 'in-queue' | 'done' | 'Error';

/**
 * Set to true, beside `status: Error`, by whoever gives a push up. Status
 * writes are not ordered against each other: the fan-out marks a record
 * `in-queue` after publishing its tasks, and a sender may already have given a
 * task up by then. The flag is never written back to false, so the record
 * reads `Error` whatever status lands last.
 */
export const gaveUpField = '_gaveUp';

/**
 * A push record as written by the API: objectId, notificationId, status,
 * data, where, prod, push_time, expiration_time, createdAt, updatedAt, and
 * internal fields (expectedTasks, errorMessage, request details).
 */
export type PushDoc = StoredObject;

/** What one slice of one task reports. */
export interface SliceResult {
  /** Unique within the push and stable across redeliveries, e.g. `<taskId>/<slice>`. */
  sliceKey: string;
  counts: PushCounts;
  /** True for the last slice of its task. */
  final: boolean;
  /** Where the task's next slice starts (its cursor); null for the last slice. */
  next?: string | null;
  /**
   * Installations the slice found unregistered and has yet to remove: kept
   * with the slice until they are gone, so that a sender dying between
   * recording the slice and removing them leaves them to the slice's redo.
   */
  unregistered?: readonly UnregisteredInstallation[];
}

/** An installation a gateway reported unregistered, removed only while it still has the `updatedAt` it was sent with. */
export interface UnregisteredInstallation {
  objectId: string;
  updatedAt: string;
}

/** What `getSlice` answers of a reported slice. */
export interface SliceReport {
  final: boolean;
  next: string | null;
  counts: PushCounts;
  /** The installations it recorded as still to remove; empty once they are gone. */
  unregistered: UnregisteredInstallation[];
}

/**
 * Push records (`_Notification`) and their delivery results. The record is
 * written by the API and changed only by `setFields`; counters are never
 * read-modify-written: each slice upserts its own result row and reads sum
 * them, so concurrent senders and redelivered tasks keep the counts exact.
 * Records and results live for the adapter's retention time (7 days unless
 * configured).
 */
export interface PushStore {
  /** Throws DuplicateValueError('objectId') when the id is taken. */
  insert(appId: string, record: PushDoc): Promise<void>;
  /**
   * The record with the `PushCounts` fields summed over its result rows and
   * `status` derived: `Error` once the record carries `_gaveUp: true` (see
   * `gaveUpField`), whatever status was written after; otherwise `in-queue`
   * reads as `done` once the number of final slices reported reaches the
   * record's numeric `expectedTasks`.
   */
  get(appId: string, objectId: string): Promise<PushDoc | null>;
  /**
   * Sets top-level fields of an existing record (status, expectedTasks,
   * errorMessage) and its `updatedAt`; answers false when the record no
   * longer exists, and never brings a deleted one back. Concurrent calls
   * setting different fields both take effect. `objectId`, `createdAt` and
   * `notificationId` are fixed at insert and ignored here.
   */
  setFields(appId: string, objectId: string, fields: Record<string, unknown>, updatedAt: string): Promise<boolean>;
  /** Deletes the record and its result rows; answers whether the record was there. */
  delete(appId: string, objectId: string): Promise<boolean>;
  /**
   * Records one slice's counts. Idempotent per (push, sliceKey): a
   * redelivered slice overwrites its own row. Needs no record and no read,
   * so a slice reported after the record was deleted is simply never seen.
   */
  recordSlice(appId: string, pushId: string, result: SliceResult): Promise<void>;
  /** The record as stored, without summing its results: a cheap check that a push is still wanted. */
  getRecord(appId: string, objectId: string): Promise<PushDoc | null>;
  /** The report of one slice, or null when it has not been reported: how a redelivered slice knows it was done. */
  getSlice(appId: string, pushId: string, sliceKey: string): Promise<SliceReport | null>;
  /** The live records sharing a notificationId, as `get` answers them, newest first. */
  findByNotificationId(appId: string, notificationId: string): Promise<PushDoc[]>;
  /** Every live record of an app, as `get` answers them, newest first, read a page at a time. */
  scan(appId: string): AsyncIterable<PushDoc>;
  /**
   * Removes records (and their results) created before `before` (Unix ms)
   * and answers how many records went. Adapters whose rows expire by
   * themselves (Cassandra TTLs) answer 0.
   */
  purgeOlderThan(before: number): Promise<number>;
}
