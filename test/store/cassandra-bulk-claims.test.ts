import { errors, type Client } from 'cassandra-driver';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { UniqueKey } from '../../src/core/ports/object-store.ts';
import { AdaptiveLimit } from '../../src/store/cassandra/adaptive-limit.ts';
import { BulkClaims } from '../../src/store/cassandra/bulk-claims.ts';
import type { CqlSession } from '../../src/store/cassandra/cassandra-client.ts';
import { CassandraStore } from '../../src/store/cassandra/cassandra-store.ts';
import { claimBucket } from '../../src/store/cassandra/claim-rows.ts';
import { PacedSession } from '../../src/store/cassandra/paced-session.ts';
import { UniqueClaims } from '../../src/store/cassandra/unique-claims.ts';
import { cassandraTestOptions, connectAdmin, dropKeyspace, testKeyspace } from './cassandra-test-keyspace.ts';
import { conformanceClasses, newAppId } from './store-conformance-fixture.ts';

/**
 * Claims of many objects at once (what `herald import` sends): the claims of
 * one unique_claims partition go as one conditional batch, a batch refused
 * because of one row settles that row and applies the others, and a batch
 * whose answer was lost is found applied when sent again.
 */
const keyspace = testKeyspace();
let admin: Client;
let store: CassandraStore;

beforeAll(async () => {
  store = await CassandraStore.open({ ...cassandraTestOptions(keyspace), classes: conformanceClasses });
  admin = await connectAdmin();
}, 120_000);
afterAll(async () => {
  await admin?.shutdown();
  await store?.close();
  await dropKeyspace(keyspace);
}, 120_000);

/** The admin client as a session; `loseNext` makes the next batch reach Cassandra and its answer be lost (a client timeout). */
function session(): { session: CqlSession; batches: number[]; loseNext: () => void } {
  const batches: number[] = [];
  let lose = false;
  return {
    batches,
    loseNext: () => {
      lose = true;
    },
    session: {
      execute: (query, params, options) => admin.execute(query, params, { prepare: true, ...options }),
      batch: async (statements, options) => {
        batches.push(statements.length);
        const result = await admin.batch(statements, { prepare: true, ...options });
        if (!lose) return result;
        lose = false;
        throw new errors.OperationTimedOutError('the answer was lost on the way back');
      },
    },
  };
}

function bulkClaims(cql: CqlSession): BulkClaims {
  const paced = new PacedSession(cql, { limit: new AdaptiveLimit({ initial: 4, min: 1, max: 4 }), patienceMs: 30_000, sleep: () => Promise.resolve() });
  // No object holds anything: a claim found standing is judged by its claim id alone.
  return new BulkClaims(paced, keyspace, () => Promise.resolve(false), { maxRows: 64, inFlight: () => 1 });
}

/** `count` usernames whose claims fall in one partition of unique_claims. */
function sameBucket(count: number, prefix: string): UniqueKey[] {
  const keys: UniqueKey[] = [];
  const bucket = claimBucket({ field: 'username', value: `${prefix}0` });
  for (let n = 0; keys.length < count; n += 1) {
    const key = { field: 'username', value: `${prefix}${n}` };
    if (claimBucket(key) === bucket) keys.push(key);
  }
  return keys;
}

/** The object a value's claim names. */
function owner(appId: string, key: UniqueKey): Promise<string | null> {
  return new UniqueClaims(session().session, keyspace, () => Promise.resolve(false)).owner(appId, 'Player', key);
}

describe('BulkClaims on Cassandra', () => {
  it('claims the values of many objects in one partition with one conditional batch, refusing only the one another object holds', async () => {
    const appId = newAppId();
    const keys = sameBucket(6, 'batched');
    const held = keys[2] as UniqueKey;
    const { session: cql, batches } = session();
    // Another object claimed one of the values first.
    expect(await bulkClaims(cql).claimAll(appId, 'Player', [{ objectId: 'earlier', keys: [held] }])).toEqual([{ claims: [expect.objectContaining({ key: held })] }]);
    batches.length = 0;

    const outcomes = await bulkClaims(cql).claimAll(
      appId,
      'Player',
      keys.map((key, index) => ({ objectId: `object${index}`, keys: [key] })),
    );
    expect(outcomes[2]).toEqual({ taken: 'username' });
    for (const [index, outcome] of outcomes.entries()) if (index !== 2) expect(outcome, `object${index}`).toEqual({ claims: [expect.objectContaining({ key: keys[index], fresh: true })] });
    // All six in one batch, refused for the held one; the five others as a batch of their own.
    expect(batches).toEqual([6, 5]);
    for (const [index, key] of keys.entries()) expect(await owner(appId, key), key.value).toBe(index === 2 ? 'earlier' : `object${index}`);
  }, 60_000);

  it('takes a batch whose answer was lost for applied when it is sent again and finds its own claims', async () => {
    const appId = newAppId();
    const keys = sameBucket(4, 'lost');
    const { session: cql, batches, loseNext } = session();
    loseNext();
    const outcomes = await bulkClaims(cql).claimAll(
      appId,
      'Player',
      keys.map((key, index) => ({ objectId: `object${index}`, keys: [key] })),
    );
    for (const [index, outcome] of outcomes.entries()) expect(outcome, `object${index}`).toEqual({ claims: [expect.objectContaining({ key: keys[index], fresh: true })] });
    // Applied by the first send, whose answer was lost; the second finds every row its own.
    expect(batches).toEqual([4, 4]);
    for (const [index, key] of keys.entries()) expect(await owner(appId, key)).toBe(`object${index}`);
  }, 60_000);
});
