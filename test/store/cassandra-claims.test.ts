import type { Client } from 'cassandra-driver';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DuplicateValueError } from '../../src/core/errors.ts';
import type { UniqueKey } from '../../src/core/ports/object-store.ts';
import type { CqlSession } from '../../src/store/cassandra/cassandra-client.ts';
import { bootstrapStatements, cassandraMigrations } from '../../src/store/cassandra/cassandra-schema.ts';
import { CassandraStore } from '../../src/store/cassandra/cassandra-store.ts';
import { claimBucket } from '../../src/store/cassandra/claim-rows.ts';
import { objectBucket, ObjectTable } from '../../src/store/cassandra/object-table.ts';
import { ObjectWrites } from '../../src/store/cassandra/object-writes.ts';
import { confirmWindowMs, pendingGraceMs, UniqueClaims, type HoldsValue } from '../../src/store/cassandra/unique-claims.ts';
import { cassandraTestOptions, connectAdmin, dropKeyspace, testKeyspace } from './cassandra-test-keyspace.ts';
import { conformanceClasses, duplicateField, newAppId, newObject } from './store-conformance-fixture.ts';

/**
 * Unique claims on Cassandra: one lightweight transaction per value when the
 * object is written soon after its claims, a confirmation when it is not,
 * and what a claimant reads before taking over a pending claim. Then the
 * upgrade that moves claims from `unique_values` to `unique_claims`.
 */
const keyspace = testKeyspace();
let admin: Client;
let store: CassandraStore;

/** A session on the admin client that prepares every statement, as the store's does, and keeps what it ran. */
function recordingSession(): { session: CqlSession; statements: string[] } {
  const statements: string[] = [];
  return {
    statements,
    session: {
      execute: (query, params, options) => {
        statements.push(query);
        return admin.execute(query, params, { prepare: true, ...options });
      },
      batch: (batched, options) => {
        statements.push(...batched.map((statement) => statement.query));
        return admin.batch(batched, { prepare: true, ...options });
      },
    },
  };
}

async function claimRow(appId: string, key: UniqueKey, className = '_User'): Promise<{ objectId: unknown; claimId: unknown; confirmed: unknown } | null> {
  const result = await admin.execute(
    `SELECT object_id, claim_id, confirmed FROM ${keyspace}.unique_claims WHERE app_id = ? AND class = ? AND bucket = ? AND field = ? AND value = ?`,
    [appId, className, claimBucket(key), key.field, key.value],
    { prepare: true },
  );
  const row = result.first();
  return row === null ? null : { objectId: row.get('object_id'), claimId: row.get('claim_id'), confirmed: row.get('confirmed') };
}

async function writeClaim(appId: string, key: UniqueKey, objectId: string, writtenAtMs: number): Promise<void> {
  await admin.execute(
    `INSERT INTO ${keyspace}.unique_claims (app_id, class, bucket, field, value, object_id, claim_id, confirmed) VALUES (?, ?, ?, ?, ?, ?, ?, false) USING TIMESTAMP ?`,
    [appId, '_User', claimBucket(key), key.field, key.value, objectId, 'old-claim', writtenAtMs * 1000],
    { prepare: true },
  );
}

beforeAll(async () => {
  admin = await connectAdmin();
  store = await CassandraStore.open({ ...cassandraTestOptions(keyspace), classes: conformanceClasses });
}, 120_000);

afterAll(async () => {
  await store?.close();
  await admin?.shutdown();
  await dropKeyspace(keyspace);
}, 120_000);

describe('unique claims on Cassandra', () => {
  it('writes a new user with one lightweight transaction per unique value and one for the object, its claims left pending', async () => {
    const recording = recordingSession();
    const writes = new ObjectWrites(recording.session, keyspace, new ObjectTable(recording.session, keyspace, 100), conformanceClasses);
    const appId = newAppId();
    const user = newObject({ username: 'quick', email: 'quick@example.com' });
    await writes.insert(appId, '_User', user);
    expect(recording.statements.filter((query) => /\bIF\b/.test(query))).toHaveLength(3);
    expect(recording.statements.some((query) => /SET confirmed = true/.test(query))).toBe(false);
    expect(await claimRow(appId, { field: 'email', value: 'quick@example.com' })).toMatchObject({ objectId: user.objectId, confirmed: false });
    expect(await store.findByUnique(appId, '_User', { field: 'username', value: 'quick' })).toEqual(user);
  });

  it('confirms the claims of an object written later than the window after them', async () => {
    let now = 0;
    const claims = new UniqueClaims(recordingSession().session, keyspace, () => Promise.resolve(false), () => now);
    const appId = newAppId();
    const key = { field: 'username', value: 'slow' };
    const taken = await claims.acquireAll(appId, '_User', 'slow-writer', [key]);
    now = confirmWindowMs - 1;
    expect(claims.withinWindow(taken)).toBe(true);
    now = confirmWindowMs + 1;
    expect(await claims.confirmAll(appId, '_User', 'slow-writer', taken)).toBeNull();
    expect(await claimRow(appId, key)).toMatchObject({ objectId: 'slow-writer', confirmed: true });
  });

  it('tells a slow writer that its claim was taken over meanwhile', async () => {
    let now = 0;
    const claims = new UniqueClaims(recordingSession().session, keyspace, () => Promise.resolve(false), () => now);
    const appId = newAppId();
    const key = { field: 'email', value: 'taken-over@example.com' };
    const taken = await claims.acquireAll(appId, '_User', 'slow-writer', [key]);
    // Written a second later than the claim's transaction, whose Paxos timestamp may lie within the same millisecond or just after it.
    await writeClaim(appId, key, 'newcomer', Date.now() + 1000);
    now = confirmWindowMs + 1;
    expect(await claims.confirmAll(appId, '_User', 'slow-writer', taken)).toEqual(key);
  });

  it('reads the object of a pending claim again, serially, once its grace period is over, and keeps the value when that read sees it', async () => {
    const appId = newAppId();
    const key = { field: 'username', value: 'landed-late' };
    await writeClaim(appId, key, 'unconfirmed-owner', Date.now() - 2 * pendingGraceMs);
    const reads: boolean[] = [];
    // The owner's write landed between the claimant's first look and the end of the grace period.
    const holds: HoldsValue = (_app, _class, objectId, _key, serial) => {
      reads.push(serial);
      return Promise.resolve(objectId === 'unconfirmed-owner' && serial);
    };
    const claims = new UniqueClaims(recordingSession().session, keyspace, holds);
    await expect(claims.acquireAll(appId, '_User', 'newcomer', [key])).rejects.toEqual(new DuplicateValueError('username'));
    expect(reads).toEqual([false, true]);
    expect(await claimRow(appId, key)).toMatchObject({ objectId: 'unconfirmed-owner', claimId: 'old-claim' });
  });

  it('holds a claim made under the same claim id by an attempt whose answer was lost', async () => {
    const claims = new UniqueClaims(recordingSession().session, keyspace, () => Promise.resolve(false));
    const appId = newAppId();
    const key = { field: 'username', value: 'retried' };
    const first = await claims.acquire(appId, '_User', 'retrying', key, 'claim-1');
    const again = await claims.acquire(appId, '_User', 'retrying', key, 'claim-1');
    expect(again).toMatchObject({ key, claimId: 'claim-1', fresh: true });
    expect(again.sentAt).toBeGreaterThanOrEqual(first.sentAt);
    expect(await claimRow(appId, key)).toMatchObject({ objectId: 'retrying', claimId: 'claim-1' });
  });
});

describe('the upgrade that moves claims to unique_claims (keyspace migration 6)', () => {
  it('copies every claim, keeps held and recently pending values, frees stale ones, and stops nodes of the version before from claiming', async () => {
    const old = testKeyspace();
    try {
      for (const statement of bootstrapStatements(old, { class: 'SimpleStrategy', replication_factor: 1 })) await admin.execute(statement);
      for (const migration of cassandraMigrations.filter((step) => step.version < 6)) {
        for (const statement of migration.statements(old)) await admin.execute(statement);
        await admin.execute(`INSERT INTO ${old}.schema_migrations (version, description) VALUES (?, ?)`, [migration.version, migration.description], { prepare: true });
      }
      const appId = newAppId();
      const held = newObject({ username: 'held-before', email: 'held@example.com' });
      const renamed = newObject({ username: 'renamed-since' });
      await admin.execute(`INSERT INTO ${old}.objects (app_id, class, bucket, object_id, doc, rev) VALUES (?, '_User', ?, ?, ?, 1)`, [appId, objectBucket(held.objectId), held.objectId, JSON.stringify(held)], { prepare: true });
      await admin.execute(`INSERT INTO ${old}.objects (app_id, class, bucket, object_id, doc, rev) VALUES (?, '_User', ?, ?, ?, 1)`, [appId, objectBucket(renamed.objectId), renamed.objectId, JSON.stringify(renamed)], { prepare: true });
      const oldClaim = (field: string, value: string, objectId: string, confirmed: boolean, writtenAtMs: number) =>
        admin.execute(
          `INSERT INTO ${old}.unique_values (app_id, class, field, value, object_id, claim_id, confirmed) VALUES (?, '_User', ?, ?, ?, ?, ?) USING TIMESTAMP ?`,
          [appId, field, value, objectId, `claim-of-${value}`, confirmed, writtenAtMs * 1000],
          { prepare: true },
        );
      const longAgo = Date.now() - 10 * pendingGraceMs;
      await oldClaim('username', 'held-before', held.objectId, true, longAgo);
      await oldClaim('email', 'held@example.com', held.objectId, false, longAgo);
      // Its user changed its username since; the claim was never released.
      await oldClaim('username', 'stale-name', renamed.objectId, true, longAgo);
      await oldClaim('username', 'on-its-way', 'object-being-written', false, Date.now());

      const upgraded = await CassandraStore.open({ ...cassandraTestOptions(old), classes: conformanceClasses });
      try {
        expect(await upgraded.findByUnique(appId, '_User', { field: 'username', value: 'held-before' })).toEqual(held);
        expect(await upgraded.findByUnique(appId, '_User', { field: 'email', value: 'held@example.com' })).toEqual(held);
        expect(await duplicateField(upgraded.insert(appId, '_User', newObject({ username: 'held-before' })))).toBe('username');
        expect(await duplicateField(upgraded.insert(appId, '_User', newObject({ email: 'held@example.com' })))).toBe('email');
        expect(await duplicateField(upgraded.insert(appId, '_User', newObject({ username: 'on-its-way' })))).toBe('username');
        const newcomer = newObject({ username: 'stale-name' });
        await upgraded.insert(appId, '_User', newcomer);
        expect(await upgraded.findByUnique(appId, '_User', { field: 'username', value: 'stale-name' })).toEqual(newcomer);
      } finally {
        await upgraded.close();
      }
      // A node still running the version before claims with the column the migration dropped: refused, not written behind the copy's back.
      await expect(
        admin.execute(`INSERT INTO ${old}.unique_values (app_id, class, field, value, object_id, claim_id, confirmed) VALUES (?, '_User', 'username', 'late', 'x', 'y', false) IF NOT EXISTS`, [appId], {
          prepare: true,
        }),
      ).rejects.toThrow(/confirmed/);
    } finally {
      await dropKeyspace(old);
    }
  }, 180_000);
});
