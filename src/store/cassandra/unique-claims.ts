import { randomBytes } from 'node:crypto';
import { types } from 'cassandra-driver';
import { DuplicateValueError } from '../../core/errors.ts';
import type { UniqueKey } from '../../core/ports/object-store.ts';
import type { CqlSession } from './cassandra-client.ts';
import { serialRead } from './consistency-levels.ts';

/*
 * Unique values are rows of `unique_values`, one partition per (app, class,
 * field, value), each naming the object that owns the value. Lightweight
 * transactions cannot span partitions, so a claim and its object are written
 * one after the other, and a crash between the two leaves a claim whose object
 * does not hold the value.
 *
 * - Before writing its object, a writer claims each value it newly holds:
 *   `INSERT … IF NOT EXISTS` as a *pending* claim with a fresh claim_id.
 *   After the object write it confirms them (`SET confirmed = true IF
 *   object_id = me`); after dropping values it releases them (`DELETE … IF
 *   object_id = me`). When its object write is refused it gives back the
 *   claims it took (`DELETE … IF claim_id = mine`); when the write's outcome
 *   is unknown (a timeout) it leaves them, to be judged like any other.
 * - A claim is held while its object holds the value, and a pending claim
 *   for `pendingGraceMs` after it was written, as its object may be on the
 *   way. Any other claim is stale, and a claimant takes it over with
 *   `UPDATE … IF claim_id = <stale id> AND confirmed = <as seen>`: of
 *   several, exactly one wins, and none once the owner has confirmed a
 *   pending claim judged stale (its slow object write landed meanwhile).
 * - An object claiming a value whose claim already names it (a leftover of
 *   its own) marks it pending again under a new claim_id, so that a
 *   concurrent takeover of that stale-looking claim fails.
 * - Readers trust a claim only once they have seen its object hold the value.
 * - A writer slower than the grace period may find at confirmation that its
 *   claim was taken over; it then undoes its object write and fails.
 */

/** How long a pending claim is held even though its object does not (yet) hold the value. */
export const pendingGraceMs = 30_000;
const maxClaimAttempts = 8;

/** A claim taken for one write. */
export interface Claim {
  key: UniqueKey;
  claimId: string;
  /** Taken from no one or from another object, so it is given back if the write is refused. */
  fresh: boolean;
}

/** Answers whether an object (as stored now) holds a unique value. */
export type HoldsValue = (appId: string, className: string, objectId: string, key: UniqueKey) => Promise<boolean>;

interface ClaimRow {
  objectId: string;
  claimId: string;
  confirmed: boolean;
}

export class UniqueClaims {
  readonly #session: CqlSession;
  readonly #table: string;
  readonly #holds: HoldsValue;
  readonly #where = 'app_id = ? AND class = ? AND field = ? AND value = ?';

  constructor(session: CqlSession, keyspace: string, holds: HoldsValue) {
    this.#session = session;
    this.#table = `${keyspace}.unique_values`;
    this.#holds = holds;
  }

  /** The object a value's claim names, or null; the caller checks that the object holds it. */
  async owner(appId: string, className: string, key: UniqueKey): Promise<string | null> {
    const result = await this.#session.execute(`SELECT object_id FROM ${this.#table} WHERE ${this.#where}`, this.#keyParams(appId, className, key));
    const row = result.first() as types.Row | null;
    return row === null ? null : String(row.get('object_id'));
  }

  /** Claims `keys` in order for `objectId`; when one is held, gives back those taken and throws DuplicateValueError. */
  async acquireAll(appId: string, className: string, objectId: string, keys: readonly UniqueKey[]): Promise<Claim[]> {
    const claims: Claim[] = [];
    try {
      for (const key of keys) claims.push(await this.#acquire(appId, className, objectId, key));
    } catch (error) {
      await this.abandon(appId, className, claims);
      throw error;
    }
    return claims;
  }

  /** Marks claims as backed by the written object; answers the first one found taken over, or null. */
  async confirmAll(appId: string, className: string, objectId: string, claims: readonly Claim[]): Promise<UniqueKey | null> {
    const confirmed = await Promise.all(
      claims.map(async (claim) => {
        const result = await this.#session.execute(
          `UPDATE ${this.#table} SET confirmed = true WHERE ${this.#where} IF object_id = ?`,
          [...this.#keyParams(appId, className, claim.key), objectId],
        );
        return result.wasApplied();
      }),
    );
    return claims.find((_, index) => !confirmed[index])?.key ?? null;
  }

  /** Frees values the object no longer holds. */
  async releaseAll(appId: string, className: string, objectId: string, keys: readonly UniqueKey[]): Promise<void> {
    await Promise.all(
      keys.map((key) =>
        this.#session.execute(`DELETE FROM ${this.#table} WHERE ${this.#where} IF object_id = ?`, [...this.#keyParams(appId, className, key), objectId]),
      ),
    );
  }

  /** Gives back the fresh claims of a refused write. Best effort: a claim left behind becomes stale. */
  async abandon(appId: string, className: string, claims: readonly Claim[]): Promise<void> {
    await Promise.all(
      claims
        .filter((claim) => claim.fresh)
        .map((claim) =>
          this.#session
            .execute(`DELETE FROM ${this.#table} WHERE ${this.#where} IF claim_id = ?`, [...this.#keyParams(appId, className, claim.key), claim.claimId])
            .catch(() => undefined),
        ),
    );
  }

  async #acquire(appId: string, className: string, objectId: string, key: UniqueKey): Promise<Claim> {
    const claimId = randomBytes(12).toString('hex');
    const params = this.#keyParams(appId, className, key);
    for (let attempt = 0; attempt < maxClaimAttempts; attempt += 1) {
      const inserted = await this.#session.execute(
        `INSERT INTO ${this.#table} (app_id, class, field, value, object_id, claim_id, confirmed) VALUES (?, ?, ?, ?, ?, ?, false) IF NOT EXISTS`,
        [...params, objectId, claimId],
      );
      if (inserted.wasApplied()) return { key, claimId, fresh: true };
      const current = claimRow(inserted.first());
      if (current.objectId === objectId) {
        const marked = await this.#session.execute(
          `UPDATE ${this.#table} SET claim_id = ?, confirmed = false WHERE ${this.#where} IF object_id = ?`,
          [claimId, ...params, objectId],
        );
        if (marked.wasApplied()) return { key, claimId, fresh: false };
        continue;
      }
      if (await this.#holds(appId, className, current.objectId, key)) throw new DuplicateValueError(key.field);
      if (!current.confirmed && !(await this.#pendingExpired(params, current.claimId))) throw new DuplicateValueError(key.field);
      // Only the claim as judged: had its owner confirmed it since (its object
      // landed after the read above), taking it would give the value to two.
      const taken = await this.#session.execute(
        `UPDATE ${this.#table} SET object_id = ?, claim_id = ?, confirmed = false WHERE ${this.#where} IF claim_id = ? AND confirmed = ?`,
        [objectId, claimId, ...params, current.claimId, current.confirmed],
      );
      if (taken.wasApplied()) return { key, claimId, fresh: true };
    }
    // The claim kept changing hands under us: others are writing this value right now.
    throw new DuplicateValueError(key.field);
  }

  /** Answers whether a pending claim, still under `claimId`, is older than the grace period by the server's clock. */
  async #pendingExpired(params: unknown[], claimId: string): Promise<boolean> {
    const result = await this.#session.execute(
      `SELECT claim_id, WRITETIME(claim_id) AS written, currentTimestamp() AS now FROM ${this.#table} WHERE ${this.#where}`,
      params,
      { consistency: serialRead },
    );
    const row = result.first() as types.Row | null;
    if (row === null || row.get('claim_id') !== claimId) return true;
    const written: unknown = row.get('written');
    const now: unknown = row.get('now');
    if (!(written instanceof types.Long) || !(now instanceof Date)) return false;
    return now.getTime() - written.toNumber() / 1000 >= pendingGraceMs;
  }

  #keyParams(appId: string, className: string, key: UniqueKey): unknown[] {
    return [appId, className, key.field, key.value];
  }
}

function claimRow(row: types.Row | null): ClaimRow {
  if (row === null) throw new Error('a refused INSERT … IF NOT EXISTS answered no current row');
  const confirmed: unknown = row.get('confirmed');
  return { objectId: String(row.get('object_id')), claimId: String(row.get('claim_id')), confirmed: confirmed === true };
}
