import { errors, types, type Client } from 'cassandra-driver';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DuplicateValueError, ServiceUnavailableError } from '../../src/core/errors.ts';
import { silentLogger } from '../../src/core/logger.ts';
import { parseWhere } from '../../src/query/parse-query.ts';
import { queryAll } from '../../src/query/query.ts';
import { bootstrapStatements, cassandraMigrations, cassandraSchemaVersion } from '../../src/store/cassandra/cassandra-schema.ts';
import { CassandraStore } from '../../src/store/cassandra/cassandra-store.ts';
import { connectCassandra, type CqlSession } from '../../src/store/cassandra/cassandra-client.ts';
import type { CassandraStoreOptions } from '../../src/store/cassandra/cassandra-store-options.ts';
import { migrateCassandra, runCassandraMigrations, type MigrationSession } from '../../src/store/cassandra/migrations.ts';
import { startupRetry } from '../../src/store/cassandra/startup-retry.ts';
import { objectBucket } from '../../src/store/cassandra/object-table.ts';
import { claimBucket } from '../../src/store/cassandra/claim-rows.ts';
import { pendingGraceMs, UniqueClaims } from '../../src/store/cassandra/unique-claims.ts';
import { eventually } from '../support/eventually.ts';
import { memoryLogger } from '../support/memory-logger.ts';
import { serviceEndpoints } from '../support/service-endpoints.ts';
import { withDeadline } from '../support/with-deadline.ts';
import { cassandraTestOptions, connectAdmin, dropKeyspace, testKeyspace } from './cassandra-test-keyspace.ts';
import { TcpProxy } from './cassandra-tcp-proxy.ts';
import { describeStoreConformance } from './store-conformance.ts';
import { conformanceClasses, duplicateField, newAppId, newObject } from './store-conformance-fixture.ts';

describeStoreConformance('Cassandra', async (classes, clock) => {
  const keyspace = testKeyspace();
  const opened: CassandraStore[] = [];
  const open = async (): Promise<CassandraStore> => {
    const store = await CassandraStore.open({ ...cassandraTestOptions(keyspace), classes, clock });
    opened.push(store);
    return store;
  };
  return {
    store: await open(),
    openAnother: open,
    cleanup: async () => {
      for (const store of opened) await store.close();
      await dropKeyspace(keyspace);
    },
  };
});

const later = '2030-01-01T00:00:00.000Z';

/** What an outage looks like to a caller: 503, retryable, naming Cassandra. */
const cassandraUnavailable = { status: 503, code: 503, retryable: true, service: 'Cassandra', message: 'Cassandra is unavailable; retry later' };

async function rejection(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    () => {
      throw new Error('expected a rejection');
    },
    (reason: unknown) => reason,
  );
}

describe('CassandraStore', () => {
  const keyspace = testKeyspace();
  const opened: CassandraStore[] = [];
  let store: CassandraStore;
  let admin: Client;

  const openStore = async (overrides: Partial<CassandraStoreOptions> = {}): Promise<CassandraStore> => {
    const opening = await CassandraStore.open({ ...cassandraTestOptions(keyspace), classes: conformanceClasses, ...overrides });
    opened.push(opening);
    return opening;
  };
  const claimRow = async (appId: string, field: string, value: string): Promise<Record<string, unknown> | null> => {
    const result = await admin.execute(
      `SELECT object_id, confirmed FROM ${keyspace}.unique_claims WHERE app_id = ? AND class = ? AND bucket = ? AND field = ? AND value = ?`,
      [appId, '_User', claimBucket({ field, value }), field, value],
      { prepare: true },
    );
    const row = result.first() as Record<string, unknown> | null;
    return row === null ? null : { objectId: row.object_id, confirmed: row.confirmed };
  };
  const writeClaim = (appId: string, field: string, value: string, objectId: string, confirmed: boolean, writtenAtMs = Date.now()) =>
    admin.execute(
      `INSERT INTO ${keyspace}.unique_claims (app_id, class, bucket, field, value, object_id, claim_id, confirmed)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?) USING TIMESTAMP ?`,
      [appId, '_User', claimBucket({ field, value }), field, value, objectId, 'crashed-writer', confirmed, writtenAtMs * 1000],
      { prepare: true },
    );

  /** UniqueClaims' session on the admin client, every statement prepared as the store's are. */
  const adminSession = (): CqlSession => ({
    execute: (query, params, options) => admin.execute(query, params, { prepare: true, ...options }),
    batch: (statements, options) => admin.batch(statements, { prepare: true, ...options }),
  });

  beforeAll(async () => {
    store = await openStore();
    admin = await connectAdmin();
  });

  afterAll(async () => {
    for (const each of opened) await each.close();
    await admin?.shutdown();
    await dropKeyspace(keyspace);
  });

  it('gives a value to exactly one of two stores inserting it at once, and keeps nothing of the loser', async () => {
    const other = await openStore();
    const appId = newAppId();
    for (let round = 0; round < 5; round += 1) {
      // Each claims its own username first, then both race for the email.
      const users = [
        newObject({ username: `left${round}`, email: `race${round}@example.com` }),
        newObject({ username: `right${round}`, email: `race${round}@example.com` }),
      ];
      const outcomes = await Promise.allSettled([store.insert(appId, '_User', users[0]!), other.insert(appId, '_User', users[1]!)]);
      const winners = users.filter((_, index) => outcomes[index]?.status === 'fulfilled');
      const losers = users.filter((_, index) => outcomes[index]?.status === 'rejected');
      expect(winners).toHaveLength(1);
      const [winner, loser] = [winners[0]!, losers[0]!];
      const failure = outcomes.find((outcome) => outcome.status === 'rejected');
      expect(failure?.status === 'rejected' && failure.reason).toEqual(new DuplicateValueError('email'));
      // Written well within the confirmation window: the claims stay pending, held because the object holds them.
      expect(await claimRow(appId, 'email', winner.email as string)).toEqual({ objectId: winner.objectId, confirmed: false });
      expect(await claimRow(appId, 'username', winner.username as string)).toEqual({ objectId: winner.objectId, confirmed: false });
      expect(await claimRow(appId, 'username', loser.username as string)).toBeNull();
      expect(await other.get(appId, '_User', loser.objectId)).toBeNull();
      expect(await other.findByUnique(appId, '_User', { field: 'email', value: winner.email as string })).toEqual(winner);
    }
  });

  it.each([
    ['whose object is gone', (_appId: string) => Promise.resolve('crashed-object')],
    [
      'whose object no longer holds the value',
      async (appId: string) => {
        const holder = newObject({ username: 'someone-else' });
        await store.insert(appId, '_User', holder);
        return holder.objectId;
      },
    ],
  ])('ignores a confirmed claim %s, and lets a new user take the value', async (_title, claimant) => {
    const appId = newAppId();
    await writeClaim(appId, 'username', 'ghost', await claimant(appId), true);
    expect(await store.findByUnique(appId, '_User', { field: 'username', value: 'ghost' })).toBeNull();

    const user = newObject({ username: 'ghost' });
    await store.insert(appId, '_User', user);
    expect(await store.findByUnique(appId, '_User', { field: 'username', value: 'ghost' })).toEqual(user);
    expect(await claimRow(appId, 'username', 'ghost')).toEqual({ objectId: user.objectId, confirmed: false });
  });

  it('holds a pending claim without its object for the grace period, then lets a new user take it', async () => {
    const appId = newAppId();
    await writeClaim(appId, 'username', 'inflight', 'object-on-its-way', false);
    expect(await duplicateField(store.insert(appId, '_User', newObject({ username: 'inflight' })))).toBe('username');
    expect(await store.findByUnique(appId, '_User', { field: 'username', value: 'inflight' })).toBeNull();

    await writeClaim(appId, 'username', 'abandoned', 'crashed-object', false, Date.now() - 2 * pendingGraceMs);
    const user = newObject({ username: 'abandoned' });
    await store.insert(appId, '_User', user);
    expect(await claimRow(appId, 'username', 'abandoned')).toEqual({ objectId: user.objectId, confirmed: false });
  });

  it('refuses to take over a stale pending claim whose owner confirms it between the claimant judging it and taking it', async () => {
    const appId = newAppId();
    // A slow writer claimed the value long ago; its object write lands only
    // after the claimant has read that the object does not hold the value.
    await writeClaim(appId, 'username', 'late', 'slow-object', false, Date.now() - 2 * pendingGraceMs);
    const session = adminSession();
    let objectLanded = false;
    const claims = new UniqueClaims(session, keyspace, async (_app, _class, objectId) => {
      if (objectId !== 'slow-object') return false;
      if (objectLanded) return true;
      // What the slow writer does right after this read: its object lands, and it confirms its claim.
      objectLanded = true;
      const slowClaim = { key: { field: 'username', value: 'late' }, claimId: 'crashed-writer', fresh: true, sentAt: performance.now() - 2 * pendingGraceMs };
      expect(await claims.confirmAll(appId, '_User', 'slow-object', [slowClaim])).toBeNull();
      return false;
    });

    const claiming = claims.acquireAll(appId, '_User', 'newcomer', [{ field: 'username', value: 'late' }]);
    await expect(claiming).rejects.toEqual(new DuplicateValueError('username'));
    expect(objectLanded).toBe(true);
    expect(await claimRow(appId, 'username', 'late')).toEqual({ objectId: 'slow-object', confirmed: true });
  });

  it('streams a class over many small pages and answers the right ordered page', async () => {
    const fetchSize = 2;
    const paged = await openStore({ fetchSize });
    const appId = newAppId();
    const things = Array.from({ length: 48 }, (_, index) => newObject({ rank: (index * 17) % 48, even: index % 2 === 0 }));
    for (const thing of things) await paged.insert(appId, 'Thing', thing);
    const perBucket = new Map<number, number>();
    for (const thing of things) perBucket.set(objectBucket(thing.objectId), (perBucket.get(objectBucket(thing.objectId)) ?? 0) + 1);
    expect(Math.max(...perBucket.values())).toBeGreaterThan(fetchSize);

    const expected = things
      .filter((thing) => thing.even)
      .sort((a, b) => Number(b.rank) - Number(a.rank))
      .slice(4, 9)
      .map((thing) => thing.objectId);
    const page = await paged.find(
      appId,
      'Thing',
      queryAll({ where: parseWhere({ even: true }), order: [{ path: ['rank'], descending: true }], skip: 4, limit: 5, count: true }),
    );
    expect(page.count).toBe(24);
    expect(page.results.map((thing) => thing.objectId)).toEqual(expected);
  });

  it('loses no increment when two stores update one object at once', async () => {
    const other = await openStore();
    const appId = newAppId();
    const counter = newObject({ value: 0 });
    await store.insert(appId, 'Counter', counter);
    const increments = 16;
    await Promise.all(
      Array.from({ length: increments }, (_, index) =>
        (index % 2 === 0 ? store : other).update(appId, 'Counter', counter.objectId, [{ op: 'increment', path: ['value'], amount: 1 }], {
          updatedAt: later,
        }),
      ),
    );
    expect((await store.get(appId, 'Counter', counter.objectId))?.value).toBe(increments);
  });

  it('answers 503 while Cassandra is unreachable, and works again by itself once it is back', async () => {
    const proxy = await TcpProxy.start(serviceEndpoints.cassandra.contactPoints[0]);
    try {
      const proxied = await openStore({ contactPoints: [proxy.address], requestTimeoutMs: 2000 });
      const appId = newAppId();
      await proxy.cut();
      // Each failure is caught as it happens, so none goes unhandled while an earlier one is checked.
      const errors = await Promise.all(
        [
          proxied.ping(),
          proxied.get(appId, 'Thing', 'any'),
          proxied.insert(appId, 'Thing', newObject()),
          proxied.find(appId, 'Thing', queryAll()),
          proxied.takeToken(appId, 'verifyEmail', 'hash', Date.now()),
        ].map(rejection),
      );
      for (const error of errors) {
        expect(error).toBeInstanceOf(ServiceUnavailableError);
        expect(error).toMatchObject(cassandraUnavailable);
      }
      await proxy.resume();
      await eventually('the store to answer ping once Cassandra is reachable again', () => proxied.ping(), undefined, { timeoutMs: 15_000, intervalMs: 100 });
      const thing = newObject({ title: 'after the outage' });
      await proxied.insert(appId, 'Thing', thing);
      expect(await proxied.get(appId, 'Thing', thing.objectId)).toEqual(thing);
    } finally {
      await proxy.stop();
    }
  });

  it('fails to open with 503, without hanging, when no node answers', async () => {
    const opening = CassandraStore.open({ ...cassandraTestOptions(keyspace), contactPoints: ['127.0.0.1:1'], classes: {}, connectTimeoutMs: 1000 });
    const error = await withDeadline(rejection(opening), 'opening with no node to give up');
    expect(error).toBeInstanceOf(ServiceUnavailableError);
    expect(error).toMatchObject(cassandraUnavailable);
  });

  it('answers 503 after close, and close may be called twice', async () => {
    const closing = await openStore();
    await closing.close();
    await closing.close();
    for (const error of [await rejection(closing.ping()), await rejection(closing.find(newAppId(), 'Thing', queryAll()))]) {
      expect(error).toBeInstanceOf(ServiceUnavailableError);
      expect(error).toMatchObject(cassandraUnavailable);
      expect((error as Error).cause).toEqual(new Error('the Cassandra store is closed'));
    }
  });
});

describe('Cassandra migrations', () => {
  let admin: Client;
  beforeAll(async () => {
    admin = await connectAdmin();
  });
  afterAll(async () => {
    await admin?.shutdown();
  });

  it('let several nodes migrate a new keyspace at once: all succeed and each version is applied and recorded once', async () => {
    const keyspace = testKeyspace();
    try {
      const reports = await Promise.all([1, 2, 3].map(() => migrateCassandra(cassandraTestOptions(keyspace), silentLogger())));
      expect(reports.map((report) => report.version)).toEqual([cassandraSchemaVersion, cassandraSchemaVersion, cassandraSchemaVersion]);
      const versions = cassandraMigrations.map((migration) => migration.version);
      expect(reports.flatMap((report) => report.applied).sort((a, b) => a - b)).toEqual(versions);

      const recorded = await admin.execute(`SELECT version FROM ${keyspace}.schema_migrations`);
      expect(recorded.rows.map((row) => row.get('version') as number).sort((a, b) => a - b)).toEqual(versions);
      expect((await admin.execute(`SELECT name FROM ${keyspace}.schema_lease`)).rowLength).toBe(0);
      const tables = await admin.execute('SELECT table_name FROM system_schema.tables WHERE keyspace_name = ?', [keyspace], { prepare: true });
      expect(tables.rows.map((row) => row.get('table_name') as string).sort()).toEqual([
        'delivery_push_slices',
        'delivery_ranges',
        'delivery_slices',
        'installations',
        'installations_by_channel',
        'installations_by_registration',
        'installations_by_type',
        'objects',
        'push_records',
        'push_records_by_day',
        'push_records_by_notification',
        'push_results',
        'scheduled_pushes',
        'scheduled_pushes_due',
        'schema_lease',
        'schema_migrations',
        'store_settings',
        'tokens',
        'unique_claims',
        'unique_values',
      ]);
      expect(await migrateCassandra(cassandraTestOptions(keyspace))).toEqual({ applied: [], version: cassandraSchemaVersion });
    } finally {
      await dropKeyspace(keyspace);
    }
  });

  it('waits for the lease of a node that died mid-way, and migrates once the lease expires', async () => {
    const keyspace = testKeyspace();
    try {
      for (const statement of bootstrapStatements(keyspace, { class: 'SimpleStrategy', replication_factor: 1 })) await admin.execute(statement);
      await admin.execute(`INSERT INTO ${keyspace}.schema_lease (name, holder) VALUES ('migrations', 'dead-node') USING TTL 2`);
      const log = memoryLogger('info');
      const report = await migrateCassandra(cassandraTestOptions(keyspace), log.logger);
      expect(report.applied).toEqual(cassandraMigrations.map((migration) => migration.version));
      expect(log.lines.map((line) => line.msg)).toContain('waiting for another node to migrate the Cassandra schema');
    } finally {
      await dropKeyspace(keyspace);
    }
  });

  it('refuses a keyspace whose schema is newer than this code', async () => {
    const keyspace = testKeyspace();
    try {
      await migrateCassandra(cassandraTestOptions(keyspace));
      await admin.execute(`INSERT INTO ${keyspace}.schema_migrations (version, description) VALUES (?, ?)`, [cassandraSchemaVersion + 1, 'future'], {
        prepare: true,
      });
      await expect(CassandraStore.open({ ...cassandraTestOptions(keyspace), classes: {} })).rejects.toThrow(/newer than this Herald/);
    } finally {
      await dropKeyspace(keyspace);
    }
  });

  it('migrate through replica timeouts: each step is tried again, and a lease whose taking timed out is known as its own', async () => {
    const keyspace = testKeyspace();
    const client = await connectCassandra(cassandraTestOptions(keyspace));
    try {
      // Cassandra may apply a write whose answer timed out: these run, then answer a timeout, once each.
      const flaky = timingOutOnce(client, [/schema_lease .*IF NOT EXISTS/s, /INSERT INTO \S+\.schema_migrations .*IF NOT EXISTS/s]);
      const log = memoryLogger('info');
      const started = Date.now();
      const report = await runCassandraMigrations(flaky.session, cassandraTestOptions(keyspace), log.logger, startupRetry(log.logger, { firstPauseMs: 10 }));
      expect(flaky.timedOut).toHaveLength(2);
      expect(report.applied).toEqual(cassandraMigrations.map((migration) => migration.version));
      const recorded = await admin.execute(`SELECT version FROM ${keyspace}.schema_migrations`);
      expect(recorded.rows.map((row) => row.get('version') as number).sort((a, b) => a - b)).toEqual(report.applied);
      const retried = log.lines.filter((line) => line.msg === 'Cassandra did not answer a start-up step in time; trying it again');
      expect(retried.map((line) => line.step)).toEqual(['migrate the schema', 'migrate the schema']);
      // Not mistaken for another node's lease, which would wait out its 60 s TTL.
      expect(log.lines.map((line) => line.msg)).not.toContain('waiting for another node to migrate the Cassandra schema');
      expect(Date.now() - started).toBeLessThan(55_000);
      expect((await admin.execute(`SELECT name FROM ${keyspace}.schema_lease`)).rowLength).toBe(0);
    } finally {
      await client.shutdown();
      await dropKeyspace(keyspace);
    }
  }, 120_000);
});

/**
 * The client, except that the first statement matching each pattern runs and
 * then answers a replica write timeout, as Cassandra does when a write
 * reached fewer replicas in time than it needed.
 */
function timingOutOnce(client: Client, patterns: RegExp[]): { session: MigrationSession; timedOut: string[] } {
  const pending = [...patterns];
  const timedOut: string[] = [];
  const session: MigrationSession = {
    metadata: client.metadata,
    batch: (statements, options) => client.batch(statements, options),
    execute: async (query, params, options) => {
      const result = await client.execute(query, params, options);
      const index = pending.findIndex((pattern) => pattern.test(query));
      if (index < 0) return result;
      pending.splice(index, 1);
      timedOut.push(query);
      throw new errors.ResponseError(types.responseErrorCodes.writeTimeout, 'Server timeout during write query at consistency LOCAL_SERIAL (0 peer(s) acknowledged the write over 2 required)');
    },
  };
  return { session, timedOut };
}
