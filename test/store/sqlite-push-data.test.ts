import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync, type StatementSync } from 'node:sqlite';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { PushCounts } from '../../src/core/ports/push-store.ts';
import { SqliteInstallationStore } from '../../src/store/sqlite/sqlite-installation-store.ts';
import { versionBeforeRegistrationIdRows } from '../../src/store/sqlite/sqlite-schema.ts';
import { SqliteSession } from '../../src/store/sqlite/sqlite-session.ts';
import { SqliteStore } from '../../src/store/sqlite/sqlite-store.ts';
import { describePushDataConformance } from './push-data-conformance.ts';
import { boundBytes, conformanceShards, newInstallation, newPushRecord, pushDataClock, readIndex, type CountingInstallations } from './push-data-fixture.ts';
import { newAppId } from './store-conformance-fixture.ts';

describePushDataConformance('SQLite', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'herald-push-data-'));
  const file = join(dir, 'herald.db');
  const opened: SqliteStore[] = [];
  const counted: DatabaseSync[] = [];
  const open = (installationShards = conformanceShards): SqliteStore => {
    const store = new SqliteStore({ file, classes: {}, clock: pushDataClock, installationShards });
    opened.push(store);
    return store;
  };
  return {
    store: open(),
    openAnother: () => Promise.resolve(open()),
    openWithShards: (shards) => Promise.resolve().then(() => open(shards)),
    counting: () => {
      const db = new DatabaseSync(file, { timeout: 5000 });
      counted.push(db);
      return Promise.resolve(countingInstallations(db));
    },
    cleanup: async () => {
      for (const store of opened) await store.close();
      for (const db of counted) db.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
});

/**
 * An installation store on a connection whose statements count the rows
 * they answer and the bytes they write, and refuse any read that is not an
 * indexed search: a full scan of a table would read rows that no answer shows.
 */
function countingInstallations(db: DatabaseSync): CountingInstallations {
  let rows = 0;
  let bytes = 0;
  const prepare = (sql: string): StatementSync => {
    const statement = db.prepare(sql);
    if (!/^\s*SELECT/i.test(sql)) {
      return new Proxy(statement, {
        get(target, property) {
          if (property === 'run') {
            return (...params: Parameters<StatementSync['run']>) => {
              bytes += boundBytes(params);
              return target.run(...params);
            };
          }
          const value: unknown = Reflect.get(target, property, target);
          return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
        },
      });
    }
    const plan = db.prepare(`EXPLAIN QUERY PLAN ${sql}`);
    const checked = (...params: Parameters<StatementSync['all']>) => {
      const steps = plan.all(...params).map((step) => String(step.detail));
      if (steps.some((step) => /^SCAN /.test(step))) throw new Error(`a full scan in ${sql}: ${steps.join('; ')}`);
    };
    return new Proxy(statement, {
      get(target, property) {
        if (property === 'all') {
          return (...params: Parameters<StatementSync['all']>) => {
            checked(...params);
            const answer = target.all(...params);
            rows += answer.length;
            return answer;
          };
        }
        if (property === 'get') {
          return (...params: Parameters<StatementSync['get']>) => {
            checked(...params);
            const answer = target.get(...params);
            if (answer !== undefined) rows += 1;
            return answer;
          };
        }
        const value: unknown = Reflect.get(target, property, target);
        return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
      },
    });
  };
  const session = new SqliteSession(
    new Proxy(db, {
      get(target, property) {
        if (property === 'prepare') return prepare;
        const value: unknown = Reflect.get(target, property, target);
        return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
      },
    }),
  );
  const installations = new SqliteInstallationStore(session, conformanceShards);
  // Opening reads and records the shard count; only what comes after it counts.
  rows = 0;
  bytes = 0;
  return {
    installations,
    rowsRead: () => rows,
    bytesWritten: () => bytes,
    reset: () => {
      rows = 0;
      bytes = 0;
    },
  };
}

const counts = (devices: number): PushCounts => ({
  devices,
  successes: devices,
  errors: 0,
  invalidTokens: 0,
  iosSuccesses: devices,
  androidSuccesses: 0,
  errorReasons: {},
});

describe('SQLite push data', () => {
  let dir = '';
  let file = '';
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'herald-push-data-'));
    file = join(dir, 'herald.db');
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('purges records created before a time with their results, and keeps the newer ones', async () => {
    const store = new SqliteStore({ file, classes: {}, clock: pushDataClock });
    const appId = newAppId();
    const day = 86_400_000;
    const at = (ms: number): string => new Date(ms).toISOString();
    const now = pushDataClock.now();
    const old = newPushRecord({ createdAt: at(now - 8 * day), updatedAt: at(now - 8 * day) });
    const recent = newPushRecord({ createdAt: at(now - day), updatedAt: at(now - day) });
    for (const record of [old, recent]) {
      await store.pushes.insert(appId, record);
      await store.pushes.recordSlice(appId, record.objectId, { sliceKey: 't/0', counts: counts(5), final: true });
    }
    expect(await store.pushes.purgeOlderThan(now - 7 * day)).toBe(1);
    expect(await store.pushes.get(appId, old.objectId)).toBeNull();
    expect(await store.pushes.get(appId, recent.objectId)).toMatchObject({ devices: 5 });
    await store.close();
    const db = new DatabaseSync(file);
    expect(db.prepare('SELECT push_id FROM push_results').all().map((row) => row.push_id)).toEqual([recent.objectId]);
    db.close();
  });

  it('keeps installations and the shard count across reopening, and names both counts when refusing another', async () => {
    const appId = newAppId();
    const first = new SqliteStore({ file, classes: {}, installationShards: 16 });
    const device = newInstallation({ deviceType: 'ios', deviceToken: 'kept', channels: ['news'] });
    await first.installations.insert(appId, device);
    await first.close();
    expect(() => new SqliteStore({ file, classes: {} })).toThrow(/created with 16 installation shards but is opened with 64/);
    const second = new SqliteStore({ file, classes: {}, installationShards: 16 });
    expect(second.installations.shardCount).toBe(16);
    expect(await second.installations.findByDevice(appId, { field: 'deviceToken', value: 'kept' })).toEqual(device);
    expect((await readIndex(second.installations, appId, { kind: 'channel', channel: 'news' })).found).toEqual([device]);
    await second.close();
  });

  it('finds the installations stored before the registrationId index once the database is opened by this version', async () => {
    const appId = newAppId();
    const first = new SqliteStore({ file, classes: {} });
    const maker = newInstallation({ deviceType: 'android', registrationId: 'reg-kept', vendor: 'vivo', channels: ['news'] });
    const fcm = newInstallation({ deviceType: 'android', registrationId: 'fcm-kept', vendor: 'fcm' });
    const none = newInstallation({ deviceType: 'android', registrationId: '' });
    await first.installations.insertMany(appId, [maker, fcm, none]);
    await first.close();
    // The database as the version before the registrationId index left it: no registrationId rows, its schema steps not yet taken.
    const db = new DatabaseSync(file);
    db.exec(`DELETE FROM installation_index WHERE index_key LIKE 'r:%'`);
    db.exec(`PRAGMA user_version = ${versionBeforeRegistrationIdRows}`);
    db.close();

    const second = new SqliteStore({ file, classes: {} });
    expect(await second.installations.findByRegistrationId(appId, 'reg-kept')).toEqual([maker]);
    expect(await second.installations.findByRegistrationId(appId, 'fcm-kept')).toEqual([fcm]);
    expect((await readIndex(second.installations, appId, { kind: 'channel', channel: 'news' })).found).toEqual([maker]);
    await second.close();
    const after = new DatabaseSync(file);
    expect(after.prepare(`SELECT count(*) AS n FROM installation_index WHERE index_key LIKE 'r:%'`).get()?.n).toBe(2);
    after.close();
  });

  it('finds the holders of a registrationId with one indexed range read, whatever the shards', () => {
    const store = new SqliteStore({ file, classes: {} });
    const db = new DatabaseSync(file);
    const plan = db
      .prepare(
        `EXPLAIN QUERY PLAN SELECT i.doc FROM installation_index x
         JOIN installations i ON i.app_id = x.app_id AND i.shard = x.shard AND i.object_id = x.object_id
         WHERE x.app_id = ? AND x.index_key = ? ORDER BY x.object_id LIMIT ?`,
      )
      .all('a', 'r:x', 10)
      .map((step) => String(step.detail));
    expect(plan).toContain('SEARCH x USING PRIMARY KEY (app_id=? AND index_key=?)');
    expect(plan).toContain('SEARCH i USING PRIMARY KEY (app_id=? AND shard=? AND object_id=?)');
    db.close();
    return store.close();
  });

  it('reads a shard page with one indexed range read', () => {
    const store = new SqliteStore({ file, classes: {} });
    const db = new DatabaseSync(file);
    const plan = (sql: string): string[] => db.prepare(`EXPLAIN QUERY PLAN ${sql}`).all('a', 1, '', 10).map((step) => String(step.detail));
    expect(plan('SELECT doc FROM installations WHERE app_id = ? AND shard = ? AND object_id > ? ORDER BY object_id LIMIT ?')).toEqual([
      'SEARCH installations USING PRIMARY KEY (app_id=? AND shard=? AND object_id>?)',
    ]);
    db.close();
    return store.close();
  });
});
