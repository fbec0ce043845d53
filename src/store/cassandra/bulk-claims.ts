import type { types } from 'cassandra-driver';
import { DuplicateValueError } from '../../core/errors.ts';
import type { UniqueKey } from '../../core/ports/object-store.ts';
import type { CqlSession } from './cassandra-client.ts';
import { claimKeyParams, claimStatements } from './claim-rows.ts';
import { ConditionalBatcher, type BatcherOptions, type ConditionalRow } from './partition-batcher.ts';
import { newClaimId, type Claim, type HoldsValue, UniqueClaims } from './unique-claims.ts';

/** What claiming an object's values came to: every claim, or the field of a value found held by another. */
export type ClaimsOutcome = { claims: Claim[] } | { taken: string };

/**
 * Claims for many objects at once, with the rules of UniqueClaims: each
 * value's `INSERT … IF NOT EXISTS` joins the other claims of its partition
 * in one conditional batch. A value whose row is already there (held, stale,
 * or a leftover of the same object) is claimed alone by UniqueClaims, which
 * judges it; so is every confirmation, which only a slow write needs.
 */
export class BulkClaims {
  readonly claims: UniqueClaims;
  readonly #batcher: ConditionalBatcher;
  readonly #cql: ReturnType<typeof claimStatements>;
  readonly #now: () => number;

  constructor(session: CqlSession, keyspace: string, holds: HoldsValue, batching: BatcherOptions, now: () => number = () => performance.now()) {
    this.claims = new UniqueClaims(session, keyspace, holds, now);
    this.#batcher = new ConditionalBatcher(session, batching, (row) => claimRowKey(String(row.get('field')), String(row.get('value'))));
    this.#cql = claimStatements(keyspace);
    this.#now = now;
  }

  /** Claims each object's values; an object that meets a held value gets back none of its claims. */
  async claimAll(appId: string, className: string, wants: readonly { objectId: string; keys: readonly UniqueKey[] }[]): Promise<ClaimsOutcome[]> {
    return Promise.all(wants.map((want) => this.#claimOne(appId, className, want.objectId, want.keys)));
  }

  /** Gives back the claims an object took (those it took from no one or from another): best effort. */
  async abandon(appId: string, className: string, claims: readonly Claim[]): Promise<void> {
    await Promise.all(
      claims
        .filter((claim) => claim.fresh)
        .map((claim) =>
          this.#batcher.write({
            group: groupOf(appId, className, claim.key),
            key: claimRowKey(claim.key.field, claim.key.value),
            statement: { query: this.#cql.abandon, params: [...claimKeyParams(appId, className, claim.key), claim.claimId] },
            // Gone, or no longer this claim: nothing to give back.
            judge: (current) => (current?.get('claim_id') === claim.claimId ? 'free' : 'held'),
          }),
        ),
    );
  }

  async #claimOne(appId: string, className: string, objectId: string, keys: readonly UniqueKey[]): Promise<ClaimsOutcome> {
    const claimId = newClaimId();
    const settled = await Promise.allSettled(keys.map((key) => this.#claimKey(appId, className, objectId, key, claimId)));
    const claims = settled.flatMap((outcome) => (outcome.status === 'fulfilled' ? [outcome.value] : []));
    const failure = settled.find((outcome) => outcome.status === 'rejected');
    if (failure === undefined) return { claims };
    await this.abandon(appId, className, claims);
    if (failure.reason instanceof DuplicateValueError) return { taken: failure.reason.field };
    throw failure.reason;
  }

  async #claimKey(appId: string, className: string, objectId: string, key: UniqueKey, claimId: string): Promise<Claim> {
    const sentAt = this.#now();
    const row: ConditionalRow = {
      group: groupOf(appId, className, key),
      key: claimRowKey(key.field, key.value),
      statement: { query: this.#cql.claim, params: [...claimKeyParams(appId, className, key), objectId, claimId] },
      judge: (current: types.Row | undefined) => {
        if (current === undefined) return 'free';
        return current.get('claim_id') === claimId && current.get('object_id') === objectId ? 'held' : 'refused';
      },
    };
    const outcome = await this.#batcher.write(row);
    if (outcome.applied) return { key, claimId, fresh: true, sentAt };
    // Someone's row is there: judged, and taken over if stale, one value at a time.
    const claim = await this.claims.acquire(appId, className, objectId, key, claimId);
    return { ...claim, sentAt: Math.min(claim.sentAt, sentAt) };
  }
}

function groupOf(appId: string, className: string, key: UniqueKey): string {
  const [, , bucket] = claimKeyParams(appId, className, key);
  return `${appId}\u0000${className}\u0000${String(bucket)}`;
}

function claimRowKey(field: string, value: string): string {
  return `${field}\u0000${value}`;
}
