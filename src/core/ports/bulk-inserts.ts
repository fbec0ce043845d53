import type { StoredObject } from './object-store.ts';

/** What a bulk insert did with one object. */
export type BulkInsertOutcome =
  | { kind: 'inserted' }
  /** An object with its objectId is stored already: left as it is. */
  | { kind: 'present' }
  /** A unique value (`field`) is held by another object: nothing of this one was written. */
  | { kind: 'taken'; field: string };

export interface BulkInsertOptions {
  /** Statements in flight at most; fewer while the store is slow. */
  maxInFlight: number;
  /** Gives up (throws, not to be retried) once the store has answered nothing for this long. */
  patienceMs: number;
  /** Stops waiting for a store that does not answer. */
  signal?: AbortSignal;
}

/** What the writes met: answered and retried statements, timeouts, and how many were let in flight. */
export interface BulkWriteReport {
  answered: number;
  retried: number;
  congested: number;
  unreachable: number;
  lastLatencyMs: number | null;
  startingLimit: number;
  lowestLimit: number;
  limit: number;
}

/**
 * Inserts of many new objects in few round trips, for an import: each object
 * with its unique values claimed, as `insert` would, all or nothing per
 * object, many objects per statement where the store can. A store that is
 * slow is waited for; one that is gone makes the call throw.
 */
export interface BulkInserts {
  /** Objects of one class. No two may share an objectId or a unique value. */
  insertObjects(appId: string, className: string, objects: readonly StoredObject[]): Promise<BulkInsertOutcome[]>;
  /** Installations, with their index entries. No two may share an objectId, a deviceToken or an installationId. */
  insertInstallations(appId: string, installations: readonly StoredObject[]): Promise<BulkInsertOutcome[]>;
  /** Writes again the index entries of stored installations, which a run that stopped between an installation and its entries may have left out. */
  repairInstallations(appId: string, objectIds: readonly string[]): Promise<void>;
  report(): BulkWriteReport;
}
