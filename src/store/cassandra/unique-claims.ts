import { randomHexId } from '../../core/ids.ts';
import { types } from 'cassandra-driver';
import { DuplicateValueError } from '../../core/errors.ts';
import type { UniqueKey } from '../../core/ports/object-store.ts';
import type { CqlSession } from './cassandra-client.ts';
import { claimKeyParams, claimStatements, readClaimRow } from './claim-rows.ts';
import { serialRead } from './consistency-levels.ts';

/*
 * Unique values are rows of `unique_claims`, one per (app, class, field,
 * value), in partitions of (app, class, bucket), each naming the object that
 * owns the value. Lightweight transactions cannot span partitions, so a claim
 * and its object are written one after the other, and a crash between the
 * two leaves a claim whose object does not hold the value.
 *
 * - Before writing its object, a writer claims each value it newly holds:
 *   `INSERT … IF NOT EXISTS` as a *pending* claim with a fresh claim_id.
 *   After dropping values it releases them (`DELETE … IF object_id = me`).
 *   When its object write is refused it gives back the claims it took
 *   (`DELETE … IF claim_id = mine`); when the write's outcome is unknown (a
 *   timeout) it leaves them, to be judged like any other.
 * - A claim is held while its object holds the value, and a pending claim
 *   for `pendingGraceMs` after it was written, as its object may be on the
 *   way. Any other claim is stale, and a claimant takes it over with
 *   `UPDATE … IF claim_id = <stale id> AND confirmed = <as seen>`: of
 *   several, exactly one wins, and none once the owner has confirmed it.
 * - A claimant judges a pending claim stale only once the grace period has
 *   passed by the Cassandra nodes' clocks, and then reads its object again
 *   with a serial read. An object write acknowledged within
 *   `confirmWindowMs` of its claims being sent (by the writer's own
 *   monotonic clock) therefore landed before that read: it is seen, and
 *   the claim is held. Such a writer leaves its claims pending (one
 *   lightweight transaction per value, not two). A slower writer confirms
 *   them (`SET confirmed = true IF object_id = me`), which a takeover's
 *   condition refuses; if its claim was taken over meanwhile, it undoes its
 *   object write and fails.
 * - An object claiming a value whose claim already names it (a leftover of
 *   its own) marks it pending again under a new claim_id, so that a
 *   concurrent takeover of that stale-looking claim fails.
 * - Readers trust a claim only once they have seen its object hold the value.
 */

/** How long a pending claim is held even though its object does not (yet) hold the value. */
export const pendingGraceMs = 30_000;
/**
 * An object write acknowledged within this long of its claims being sent
 * needs no confirmation. Half the grace period: the other half covers the
 * Cassandra nodes' clocks being apart (NTP keeps them within milliseconds).
 */
export const confirmWindowMs = pendingGraceMs / 2;
const maxClaimAttempts = 8;

/** A claim taken for one write. */
export interface Claim {
  key: UniqueKey;
  claimId: string;
  /** Taken from no one or from another object, so it is given back if the write is refused. */
  fresh: boolean;
  /** The writer's monotonic clock (ms) before the statement that made the claim was first sent. */
  sentAt: number;
}

/**
 * Answers whether an object (as stored now) holds a unique value; `serial`
 * asks for a serial read, which first finishes any write to the object
 * still in a lightweight transaction.
 */
export type HoldsValue = (appId: string, className: string, objectId: string, key: UniqueKey, serial: boolean) => Promise<boolean>;

export class UniqueClaims {
  readonly #session: CqlSession;
  readonly #cql: ReturnType<typeof claimStatements>;
  readonly #holds: HoldsValue;
  readonly #now: () => number;

  /** `now`: a monotonic clock in ms, for the confirmation window. */
  constructor(session: CqlSession, keyspace: string, holds: HoldsValue, now: () => number = () => performance.now()) {
    this.#session = session;
    this.#cql = claimStatements(keyspace);
    this.#holds = holds;
    this.#now = now;
  }

  /** The object a value's claim names, or null; the caller checks that the object holds it. */
  async owner(appId: string, className: string, key: UniqueKey): Promise<string | null> {
    const result = await this.#session.execute(this.#cql.owner, claimKeyParams(appId, className, key));
    const row = result.first() as types.Row | null;
    return row === null ? null : String(row.get('object_id'));
  }

  /** Claims `keys` in order for `objectId`; when one is held, gives back those taken and throws DuplicateValueError. */
  async acquireAll(appId: string, className: string, objectId: string, keys: readonly UniqueKey[]): Promise<Claim[]> {
    const claims: Claim[] = [];
    try {
      for (const key of keys) claims.push(await this.acquire(appId, className, objectId, key));
    } catch (error) {
      await this.abandon(appId, className, claims);
      throw error;
    }
    return claims;
  }

  /**
   * Settles claims once the object holding them is written: nothing to do
   * when the write was acknowledged within `confirmWindowMs` of the first
   * claim being sent; otherwise marks them confirmed. Answers the first one
   * found taken over meanwhile, or null.
   */
  async confirmAll(appId: string, className: string, objectId: string, claims: readonly Claim[]): Promise<UniqueKey | null> {
    if (this.withinWindow(claims)) return null;
    const confirmed = await Promise.all(
      claims.map(async (claim) => (await this.#session.execute(this.#cql.confirm, [...claimKeyParams(appId, className, claim.key), objectId])).wasApplied()),
    );
    return claims.find((_, index) => !confirmed[index])?.key ?? null;
  }

  /** Whether an object write acknowledged now, after these claims, needs no confirmation. */
  withinWindow(claims: readonly Claim[]): boolean {
    const first = Math.min(...claims.map((claim) => claim.sentAt));
    return this.#now() - first < confirmWindowMs;
  }

  /** Frees values the object no longer holds. */
  async releaseAll(appId: string, className: string, objectId: string, keys: readonly UniqueKey[]): Promise<void> {
    await Promise.all(keys.map((key) => this.#session.execute(this.#cql.release, [...claimKeyParams(appId, className, key), objectId])));
  }

  /** Gives back the fresh claims of a refused write. Best effort: a claim left behind becomes stale. */
  async abandon(appId: string, className: string, claims: readonly Claim[]): Promise<void> {
    await Promise.all(
      claims
        .filter((claim) => claim.fresh)
        .map((claim) => this.#session.execute(this.#cql.abandon, [...claimKeyParams(appId, className, claim.key), claim.claimId]).catch(() => undefined)),
    );
  }

  /**
   * Claims one value for `objectId`, as described above; throws
   * DuplicateValueError when another object holds it. `claimId`: the id to
   * claim it under (a fresh one unless given).
   */
  async acquire(appId: string, className: string, objectId: string, key: UniqueKey, claimId = newClaimId()): Promise<Claim> {
    const params = claimKeyParams(appId, className, key);
    // Before any statement that may write the claim: a row under this claim id was written after it.
    const sentAt = this.#now();
    for (let attempt = 0; attempt < maxClaimAttempts; attempt += 1) {
      const inserted = await this.#session.execute(this.#cql.claim, [...params, objectId, claimId]);
      if (inserted.wasApplied()) return { key, claimId, fresh: true, sentAt };
      const row = inserted.first() as types.Row | null;
      if (row === null) throw new Error('a refused INSERT … IF NOT EXISTS answered no current row');
      const current = readClaimRow(row);
      // Written under this claim id by an earlier attempt whose answer was lost.
      if (current.claimId === claimId && current.objectId === objectId) return { key, claimId, fresh: true, sentAt };
      if (current.objectId === objectId) {
        const marked = await this.#session.execute(this.#cql.mark, [claimId, ...params, objectId]);
        if (marked.wasApplied()) return { key, claimId, fresh: false, sentAt };
        continue;
      }
      if (await this.#holds(appId, className, current.objectId, key, false)) throw new DuplicateValueError(key.field);
      if (!current.confirmed) {
        if (!(await this.#pendingExpired(params, current.claimId))) throw new DuplicateValueError(key.field);
        // Past the grace period: a write of its owner that did not confirm was acknowledged before now, so this read sees it.
        if (await this.#holds(appId, className, current.objectId, key, true)) throw new DuplicateValueError(key.field);
      }
      // Only the claim as judged: had its owner confirmed it since (its object
      // landed after the read above), taking it would give the value to two.
      const taken = await this.#session.execute(this.#cql.takeOver, [objectId, claimId, ...params, current.claimId, current.confirmed]);
      if (taken.wasApplied()) return { key, claimId, fresh: true, sentAt };
    }
    // The claim kept changing hands under us: others are writing this value right now.
    throw new DuplicateValueError(key.field);
  }

  /** Answers whether a pending claim, still under `claimId`, is older than the grace period by the server's clock. */
  async #pendingExpired(params: unknown[], claimId: string): Promise<boolean> {
    const result = await this.#session.execute(this.#cql.written, params, { consistency: serialRead });
    const row = result.first() as types.Row | null;
    if (row === null || row.get('claim_id') !== claimId) return true;
    const written: unknown = row.get('written');
    const now: unknown = row.get('now');
    if (!(written instanceof types.Long) || !(now instanceof Date)) return false;
    return now.getTime() - written.toNumber() / 1000 >= pendingGraceMs;
  }
}

/** A fresh claim id: 24 hex digits. */
export function newClaimId(): string {
  return randomHexId();
}
