import type { types } from 'cassandra-driver';
import type { UniqueKey } from '../../core/ports/object-store.ts';
import { fnv1a } from '../../core/fnv1a.ts';

/**
 * The claims of a class are spread over this many partitions of
 * `unique_claims` by a hash of field and value, so that many claims can be
 * written in one lightweight transaction (a conditional batch stays in one
 * partition) while concurrent claims of different values seldom meet in
 * one. Part of the stored data: changing it strands existing claims.
 */
export const claimBuckets = 256;

/** The partition of `unique_claims` a value's claim is in. */
export function claimBucket(key: UniqueKey): number {
  return fnv1a(`${key.field}\u0000${key.value}`) % claimBuckets;
}

/** A claim row as read back: the object it names, its claim id, and whether its object confirmed it. */
export interface ClaimRow {
  objectId: string;
  claimId: string;
  confirmed: boolean;
}

export function readClaimRow(row: types.Row): ClaimRow {
  const confirmed: unknown = row.get('confirmed');
  return { objectId: String(row.get('object_id')), claimId: String(row.get('claim_id')), confirmed: confirmed === true };
}

/** The statements on `unique_claims`; every one names a row by (app, class, bucket, field, value), in that order. */
export function claimStatements(keyspace: string) {
  const table = `${keyspace}.unique_claims`;
  const where = 'app_id = ? AND class = ? AND bucket = ? AND field = ? AND value = ?';
  return {
    owner: `SELECT object_id FROM ${table} WHERE ${where}`,
    written: `SELECT claim_id, WRITETIME(claim_id) AS written, currentTimestamp() AS now FROM ${table} WHERE ${where}`,
    /** Params: the row's key, then object id and claim id. */
    claim: `INSERT INTO ${table} (app_id, class, bucket, field, value, object_id, claim_id, confirmed) VALUES (?, ?, ?, ?, ?, ?, ?, false) IF NOT EXISTS`,
    /** Params: the new claim id, the row's key, the object id. */
    mark: `UPDATE ${table} SET claim_id = ?, confirmed = false WHERE ${where} IF object_id = ?`,
    /** Params: the new object id and claim id, the row's key, the stale claim id and confirmed as seen. */
    takeOver: `UPDATE ${table} SET object_id = ?, claim_id = ?, confirmed = false WHERE ${where} IF claim_id = ? AND confirmed = ?`,
    /** Params: the row's key, the object id. */
    confirm: `UPDATE ${table} SET confirmed = true WHERE ${where} IF object_id = ?`,
    /** Params: the row's key, the object id. */
    release: `DELETE FROM ${table} WHERE ${where} IF object_id = ?`,
    /** Params: the row's key, the claim id. */
    abandon: `DELETE FROM ${table} WHERE ${where} IF claim_id = ?`,
  };
}

/** The bound values naming a claim's row, in the order of `claimStatements`' WHERE clauses. */
export function claimKeyParams(appId: string, className: string, key: UniqueKey): unknown[] {
  return [appId, className, claimBucket(key), key.field, key.value];
}
