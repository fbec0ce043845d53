import type { Client } from 'cassandra-driver';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ScheduledPush } from '../../src/core/ports/scheduled-push-store.ts';
import { CassandraInstallationStore } from '../../src/store/cassandra/cassandra-installation-store.ts';
import { CassandraScheduledPushStore } from '../../src/store/cassandra/cassandra-scheduled-push-store.ts';
import { CassandraStore } from '../../src/store/cassandra/cassandra-store.ts';
import type { CassandraStoreOptions } from '../../src/store/cassandra/cassandra-store-options.ts';
import { StoreSettings } from '../../src/store/cassandra/store-settings.ts';
import { countingInstallations, countingSession } from './cassandra-counting-installations.ts';
import { describePushDataConformance } from './push-data-conformance.ts';
import { conformanceShards, indexIds, newInstallation, newPushRecord, nextTime, pushDataClock } from './push-data-fixture.ts';
import { cassandraTestOptions, connectAdmin, dropKeyspace, testKeyspace } from './cassandra-test-keyspace.ts';
import { newAppId } from './store-conformance-fixture.ts';

describePushDataConformance('Cassandra', async () => {
  const keyspace = testKeyspace();
  const opened: CassandraStore[] = [];
  const clients: Client[] = [];
  const open = async (installationShards = conformanceShards): Promise<CassandraStore> => {
    const store = await CassandraStore.open({ ...cassandraTestOptions(keyspace), classes: {}, clock: pushDataClock, installationShards });
    opened.push(store);
    return store;
  };
  return {
    store: await open(),
    openAnother: () => open(),
    openWithShards: (shards) => open(shards),
    counting: async () => {
      const client = await connectAdmin();
      clients.push(client);
      return countingInstallations(client, keyspace);
    },
    cleanup: async () => {
      for (const store of opened) await store.close();
      for (const client of clients) await client.shutdown();
      await dropKeyspace(keyspace);
    },
  };
});

describe('Cassandra push data', () => {
  const keyspace = testKeyspace();
  const opened: CassandraStore[] = [];
  let store: CassandraStore;
  let admin: Client;
  const openStore = async (overrides: Partial<CassandraStoreOptions> = {}): Promise<CassandraStore> => {
    const opening = await CassandraStore.open({ ...cassandraTestOptions(keyspace), classes: {}, clock: pushDataClock, ...overrides });
    opened.push(opening);
    return opening;
  };
  const cql = async (query: string, params: unknown[] = []) => admin.execute(query, params, { prepare: true });

  beforeAll(async () => {
    store = await openStore({ installationShards: 4, pushRetentionMs: 3 * 86_400_000 });
    admin = await connectAdmin();
  });

  afterAll(async () => {
    for (const each of opened) await each.close();
    await admin?.shutdown();
    await dropKeyspace(keyspace);
  });

  it('records the shard count of a new keyspace and refuses to open it with another', async () => {
    expect((await cql(`SELECT value FROM ${keyspace}.store_settings WHERE name = 'installationShards'`)).first()?.get('value')).toBe('4');
    await expect(openStore({ installationShards: 64 })).rejects.toThrow(/created with 4 installation shards but is opened with 64/);
  });

  it('writes push records and their results with the retention TTL', async () => {
    const appId = newAppId();
    const record = newPushRecord({ notificationId: 'ttl' });
    await store.pushes.insert(appId, record);
    await store.pushes.recordSlice(appId, record.objectId, {
      sliceKey: 't/0',
      counts: { devices: 1, successes: 1, errors: 0, invalidTokens: 0, iosSuccesses: 1, androidSuccesses: 0, errorReasons: {} },
      final: true,
    });
    await store.pushes.setFields(appId, record.objectId, { status: 'in-queue' }, nextTime());
    const retention = 3 * 86_400;
    const ttls = [
      await cql(`SELECT TTL(doc) AS ttl FROM ${keyspace}.push_records WHERE app_id = ? AND object_id = ?`, [appId, record.objectId]),
      await cql(`SELECT TTL(counts) AS ttl FROM ${keyspace}.push_results WHERE app_id = ? AND push_id = ?`, [appId, record.objectId]),
    ].map((result) => Number(result.first()?.get('ttl')));
    for (const ttl of ttls) expect(ttl).toBeGreaterThan(retention - 60);
    for (const ttl of ttls) expect(ttl).toBeLessThanOrEqual(retention);
    expect(await store.pushes.purgeOlderThan(Date.now())).toBe(0);
  });

  const entries = async (appId: string, objectId: string): Promise<string[]> => {
    const shard = store.installations.shardOf(objectId);
    const found: string[] = [];
    for (const [table, column, prefix] of [['installations_by_channel', 'channel', 'c'], ['installations_by_type', 'device_type', 't']] as const) {
      for (const value of ['a', 'b', 'c', 'late', 'ios', 'android']) {
        const rows = await cql(`SELECT object_id FROM ${keyspace}.${table} WHERE app_id = ? AND ${column} = ? AND shard = ? AND object_id = ?`, [appId, value, shard, objectId]);
        if (rows.rowLength > 0) found.push(`${prefix}:${value}`);
      }
    }
    return found.sort();
  };
  const rowTs = async (appId: string, objectId: string): Promise<number> => {
    const shard = store.installations.shardOf(objectId);
    return Number((await cql(`SELECT ts FROM ${keyspace}.installations WHERE app_id = ? AND shard = ? AND object_id = ?`, [appId, shard, objectId])).first()?.get('ts'));
  };

  it('puts the index entries right on the next save after a writer died between the installation row and its entries', async () => {
    const appId = newAppId();
    const device = newInstallation({ deviceType: 'ios', deviceToken: 'crash', channels: ['a', 'b'] });
    await store.installations.insert(appId, device);
    expect(await entries(appId, device.objectId)).toEqual(['c:a', 'c:b', 't:ios']);
    // What a writer leaves when it dies after writing revision 2 (channel a left, c joined, type changed) and before its entries.
    const shard = store.installations.shardOf(device.objectId);
    const crashed = { ...device, channels: ['b', 'c'], deviceType: 'android', updatedAt: nextTime() };
    await cql(`UPDATE ${keyspace}.installations SET doc = ?, rev = 2, ts = ?, added = ?, retired = ? WHERE app_id = ? AND shard = ? AND object_id = ? IF rev = 1`, [
      JSON.stringify(crashed),
      (await rowTs(appId, device.objectId)) + 1000,
      ['c:c', 't:android'],
      ['c:a', 't:ios'],
      appId,
      shard,
      device.objectId,
    ]);
    // The entries lag: the documents decide what a page answers, and the entries of c and android are missing.
    expect(await entries(appId, device.objectId)).toEqual(['c:a', 'c:b', 't:ios']);
    expect(await indexIds(store.installations, appId, { kind: 'channel', channel: 'a' })).toEqual([]);
    expect(await indexIds(store.installations, appId, { kind: 'deviceType', deviceType: 'ios' })).toEqual([]);
    expect(await indexIds(store.installations, appId, { kind: 'channel', channel: 'c' })).toEqual([]);

    const saved = await store.installations.update(appId, device.objectId, [{ op: 'set', path: ['badge'], value: 1 }], { updatedAt: nextTime() });
    expect(saved).toEqual({ ...crashed, badge: 1, updatedAt: saved?.updatedAt });
    expect(await entries(appId, device.objectId)).toEqual(['c:b', 'c:c', 't:android']);
    const page = await store.installations.scanShard(appId, { shard, index: { kind: 'channel', channel: 'c' }, after: null, limit: 10 });
    expect(page.installations).toEqual([saved]);
    expect(await indexIds(store.installations, appId, { kind: 'deviceType', deviceType: 'android' })).toEqual([device.objectId]);
  });

  it('lets a late entry of an older revision lose to the newer removal, whatever the order they arrive in', async () => {
    const appId = newAppId();
    const device = newInstallation({ deviceType: 'ios', channels: ['late'] });
    await store.installations.insert(appId, device);
    const shard = store.installations.shardOf(device.objectId);
    await store.installations.update(appId, device.objectId, [{ op: 'set', path: ['channels'], value: [] }], { updatedAt: nextTime() });
    // An entry of revision 1 arriving after revision 2 took it out carries revision 1's timestamp, below the removal's.
    await cql(`INSERT INTO ${keyspace}.installations_by_channel (app_id, channel, shard, object_id) VALUES (?, ?, ?, ?) USING TIMESTAMP ?`, [
      appId,
      'late',
      shard,
      device.objectId,
      (await rowTs(appId, device.objectId)) - 1,
    ]);
    expect(await entries(appId, device.objectId)).toEqual(['t:ios']);
  });

  it('writes no index entry for a save that changes no channel and no device type, and only the changed ones otherwise', async () => {
    const client = await connectAdmin();
    try {
      const counted = countingSession(client);
      const installations = new CassandraInstallationStore(counted.session, keyspace, 4);
      const appId = newAppId();
      const channels = Array.from({ length: 256 }, (_, n) => `ch${n}`);
      const device = newInstallation({ deviceType: 'ios', deviceToken: 'entries', channels });
      const indexWrites = (): string[] => counted.statements.filter((statement) => /^(INSERT|DELETE).*installations_by_/.test(statement));
      await installations.insert(appId, device);
      expect(indexWrites()).toHaveLength(257);
      // The first save after the insert writes the insert's entries again, in case its writer had died before them.
      await installations.update(appId, device.objectId, [{ op: 'set', path: ['badge'], value: 1 }], { updatedAt: nextTime() });
      expect(indexWrites()).toHaveLength(2 * 257);
      counted.statements.length = 0;
      await installations.update(appId, device.objectId, [{ op: 'set', path: ['badge'], value: 2 }], { updatedAt: nextTime() });
      await installations.update(appId, device.objectId, [{ op: 'set', path: ['channels'], value: channels }, { op: 'set', path: ['deviceType'], value: 'ios' }], {
        updatedAt: nextTime(),
      });
      expect(indexWrites()).toEqual([]);
      await installations.update(appId, device.objectId, [{ op: 'addUnique', path: ['channels'], objects: ['new'] }, { op: 'remove', path: ['channels'], objects: ['ch7'] }], {
        updatedAt: nextTime(),
      });
      expect(indexWrites()).toHaveLength(2);
      // The next save finishes that revision's two again, and writes none of its own.
      await installations.update(appId, device.objectId, [{ op: 'set', path: ['badge'], value: 3 }], { updatedAt: nextTime() });
      expect(indexWrites()).toHaveLength(4);
    } finally {
      await client.shutdown();
    }
  });

  it('reads an index page from the installations, never from the copy a row of an older version held', async () => {
    const appId = newAppId();
    const device = newInstallation({ deviceType: 'ios', channels: ['a'], badge: 1 });
    await store.installations.insert(appId, device);
    const shard = store.installations.shardOf(device.objectId);
    // Versions before kept the whole installation in the entry; a stale one must not be what a push sees.
    await cql(`UPDATE ${keyspace}.installations_by_channel SET doc = ? WHERE app_id = ? AND channel = ? AND shard = ? AND object_id = ?`, [
      JSON.stringify({ ...device, badge: 99, deviceToken: 'stale' }),
      appId,
      'a',
      shard,
      device.objectId,
    ]);
    const page = await store.installations.scanShard(appId, { shard, index: { kind: 'channel', channel: 'a' }, after: null, limit: 10 });
    expect(page.installations).toEqual([device]);
  });

  it('finds an installation by registrationId once saved again, when a version without those entries wrote it or changed its registrationId', async () => {
    const appId = newAppId();
    const registered = async (registrationId: string) =>
      (await cql(`SELECT object_id FROM ${keyspace}.installations_by_registration WHERE app_id = ? AND registration_id = ?`, [appId, registrationId])).rows.map((row) =>
        String(row.get('object_id')),
      );
    const old = newInstallation({ deviceType: 'android', registrationId: 'reg-before', vendor: 'HMS' });
    const moved = newInstallation({ deviceType: 'android', registrationId: 'reg-was', vendor: 'oppo' });
    await store.installations.insert(appId, old);
    await store.installations.insert(appId, moved);
    expect(await registered('reg-before')).toEqual([old.objectId]);
    // As the version before left them: a row without `registered` and no entry; a row whose registrationId such a node changed.
    const row = (objectId: string) => [appId, store.installations.shardOf(objectId), objectId];
    await cql(`UPDATE ${keyspace}.installations SET registered = null WHERE app_id = ? AND shard = ? AND object_id = ?`, row(old.objectId));
    await cql(`DELETE FROM ${keyspace}.installations_by_registration WHERE app_id = ? AND registration_id = ?`, [appId, 'reg-before']);
    const changed = { ...moved, registrationId: 'reg-now', updatedAt: nextTime() };
    await cql(`UPDATE ${keyspace}.installations SET doc = ?, rev = 2 WHERE app_id = ? AND shard = ? AND object_id = ?`, [JSON.stringify(changed), ...row(moved.objectId)]);
    expect(await store.installations.findByRegistrationId(appId, 'reg-before')).toEqual([]);
    expect(await store.installations.findByRegistrationId(appId, 'reg-now')).toEqual([]);
    // The entry left under the old registrationId names a document that no longer holds it.
    expect(await store.installations.findByRegistrationId(appId, 'reg-was')).toEqual([]);

    const saved = await store.installations.update(appId, old.objectId, [{ op: 'set', path: ['badge'], value: 1 }], { updatedAt: nextTime() });
    const resaved = await store.installations.update(appId, moved.objectId, [{ op: 'set', path: ['badge'], value: 1 }], { updatedAt: nextTime() });
    expect(await store.installations.findByRegistrationId(appId, 'reg-before')).toEqual([saved]);
    expect(await store.installations.findByRegistrationId(appId, 'reg-now')).toEqual([resaved]);
    expect(await registered('reg-was')).toEqual([]);
  });

  it('reads only the due minutes from the low-water mark, and moves the mark past minutes found empty', async () => {
    const minute = 60_000;
    const client = await connectAdmin();
    try {
      const counted = countingSession(client);
      const scheduled = new CassandraScheduledPushStore(counted.session, keyspace, new StoreSettings(counted.session, keyspace), 500);
      const dueReads = (): number => counted.statements.filter((statement) => statement.includes('scheduled_pushes_due WHERE bucket')).length;
      const mark = async (): Promise<number> => Number((await cql(`SELECT value FROM ${keyspace}.store_settings WHERE name = 'scheduledLowWater'`)).first()?.get('value'));
      const base = Math.floor(Date.now() / minute) * minute + 10 * minute;
      const entry: ScheduledPush = { id: 1, appId: newAppId(), pushId: 'p1', dueAt: base, createdAt: nextTime(), message: {} };
      await scheduled.add(entry);
      expect(await mark()).toBe(base / minute);

      expect(await scheduled.due(base - minute, 10)).toEqual([]);
      expect(dueReads()).toBe(0);
      // The minute of the entry and the three after it, looking for more.
      expect(await scheduled.due(base + 3 * minute, 10)).toEqual([entry]);
      expect(dueReads()).toBe(4);
      expect(await mark()).toBe(base / minute);

      await scheduled.remove(entry.appId, entry.id);
      const before = dueReads();
      expect(await scheduled.due(base + 20 * minute, 10)).toEqual([]);
      expect(dueReads() - before).toBe(21);
      expect(await mark()).toBe(base / minute + 15);

      const again = dueReads();
      expect(await scheduled.due(base + 21 * minute, 10)).toEqual([]);
      expect(dueReads() - again).toBe(7);

      // An entry written into a minute below the mark moves the mark back down.
      const late: ScheduledPush = { ...entry, id: 2, dueAt: base + 2 * minute };
      await scheduled.add(late);
      expect(await mark()).toBe(base / minute + 2);
      expect(await scheduled.due(base + 21 * minute, 10)).toEqual([late]);
      await scheduled.remove(late.appId, late.id);
    } finally {
      await client.shutdown();
    }
  });

  it('skips and then removes a due-time row whose entry a crashed writer never wrote', async () => {
    const minute = 60_000;
    const now = Date.now();
    const dueAt = now - 30 * minute;
    const appId = newAppId();
    // As add writes it: at the timestamp of its due time.
    await cql(`INSERT INTO ${keyspace}.scheduled_pushes_due (bucket, due_at, app_id, id) VALUES (?, ?, ?, ?) USING TIMESTAMP ?`, [
      Math.floor(dueAt / minute),
      dueAt,
      appId,
      7,
      dueAt * 1000,
    ]);
    const real: ScheduledPush = { id: 8, appId, pushId: 'p8', dueAt: dueAt + 1, createdAt: nextTime(), message: { msg: 'x' } };
    await store.scheduled.add(real);
    expect(await store.scheduled.due(now, 10)).toEqual([real]);
    const left = await cql(`SELECT id FROM ${keyspace}.scheduled_pushes_due WHERE bucket = ?`, [Math.floor(dueAt / minute)]);
    expect(left.rows.map((row) => Number(row.get('id')))).toEqual([8]);
    await store.scheduled.remove(appId, real.id);
  });
});
