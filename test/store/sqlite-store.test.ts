import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { once } from 'node:events';
import { Worker } from 'node:worker_threads';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ServiceUnavailableError } from '../../src/core/errors.ts';
import { queryAll } from '../../src/query/query.ts';
import { sqliteSchemaVersion } from '../../src/store/sqlite/sqlite-schema.ts';
import { SqliteStore } from '../../src/store/sqlite/sqlite-store.ts';
import type { ContentionJob, ContentionReport } from './sqlite-contention-worker.ts';
import { describeStoreConformance } from './store-conformance.ts';
import { conformanceClasses, newAppId, newObject } from './store-conformance-fixture.ts';

describeStoreConformance('SQLite', async (classes, clock) => {
  const dir = await mkdtemp(join(tmpdir(), 'herald-sqlite-'));
  const file = join(dir, 'herald.db');
  const opened: SqliteStore[] = [];
  const open = (): SqliteStore => {
    const store = new SqliteStore({ file, classes, clock });
    opened.push(store);
    return store;
  };
  return {
    store: open(),
    openAnother: () => Promise.resolve(open()),
    cleanup: async () => {
      for (const store of opened) await store.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
});

describe('SqliteStore', () => {
  let dir = '';
  let file = '';
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'herald-sqlite-'));
    file = join(dir, 'herald.db');
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('keeps objects, unique keys and tokens across closing and reopening the file', async () => {
    const appId = newAppId();
    const user = newObject({ username: 'ann', email: 'ann@example.com' });
    const first = new SqliteStore({ file, classes: conformanceClasses });
    await first.insert(appId, '_User', user);
    await first.putToken(appId, 'verifyEmail', 'hash', { userId: user.objectId }, Date.now() + 60_000);
    await first.close();

    const second = new SqliteStore({ file, classes: conformanceClasses });
    expect(await second.get(appId, '_User', user.objectId)).toEqual(user);
    expect(await second.findByUnique(appId, '_User', { field: 'email', value: 'ann@example.com' })).toEqual(user);
    expect((await second.find(appId, '_User', queryAll({ count: true }))).count).toBe(1);
    expect(await second.takeToken(appId, 'verifyEmail', 'hash', Date.now())).toEqual({ userId: user.objectId });
    await second.close();
  });

  it('creates the schema at open, in WAL mode, with its version recorded', async () => {
    await new SqliteStore({ file, classes: {} }).close();
    const db = new DatabaseSync(file);
    expect(db.prepare('PRAGMA user_version').get()?.user_version).toBe(sqliteSchemaVersion);
    expect(db.prepare('PRAGMA journal_mode').get()?.journal_mode).toBe('wal');
    db.close();
  });

  it('skips the fsync per commit unless told to make every commit survive a power cut', async () => {
    const normal = new SqliteStore({ file, classes: {} });
    expect(normal.synchronous).toBe('normal');
    await normal.close();
    const full = new SqliteStore({ file, classes: {}, synchronous: 'full' });
    expect(full.synchronous).toBe('full');
    await full.close();
  });

  it('purges an app\'s expired tokens when it puts another, leaving live ones and other apps alone', async () => {
    const start = Date.parse('2025-06-01T00:00:00.000Z');
    let time = start;
    const store = new SqliteStore({ file, classes: {}, clock: { now: () => time } });
    const appId = newAppId();
    const otherApp = newAppId();
    await store.putToken(appId, 'verifyEmail', 'expiring', { userId: 'u1' }, start + 1000);
    await store.putToken(appId, 'resetPassword', 'lasting', { userId: 'u2' }, start + 60_000);
    await store.putToken(otherApp, 'verifyEmail', 'elsewhere', { userId: 'u3' }, start + 1000);
    time = start + 1000;
    await store.putToken(appId, 'verifyEmail', 'fresh', { userId: 'u4' }, time + 1000);

    // Asked as of a time when it was still live, the purged token is gone all the same.
    expect(await store.peekToken(appId, 'verifyEmail', 'expiring', start)).toBeNull();
    expect(await store.peekToken(appId, 'resetPassword', 'lasting', time)).toEqual({ userId: 'u2' });
    expect(await store.peekToken(otherApp, 'verifyEmail', 'elsewhere', start)).toEqual({ userId: 'u3' });
    await store.close();

    const db = new DatabaseSync(file);
    const rows = db.prepare('SELECT app_id, token_hash FROM tokens ORDER BY expires_at, token_hash').all();
    db.close();
    expect(rows.map((row) => ({ ...row }))).toEqual([
      { app_id: otherApp, token_hash: 'elsewhere' },
      { app_id: appId, token_hash: 'fresh' },
      { app_id: appId, token_hash: 'lasting' },
    ]);
  });

  it('upgrades a database of schema version 1, keeping its tokens', async () => {
    await new SqliteStore({ file, classes: {} }).close();
    const old = new DatabaseSync(file);
    old.exec('DROP INDEX tokens_by_expiry; PRAGMA user_version = 1');
    old.prepare('INSERT INTO tokens (app_id, kind, token_hash, payload, expires_at) VALUES (?, ?, ?, ?, ?)').run('app', 'verifyEmail', 'hash', '{"userId":"u1"}', 2000);
    old.close();

    const store = new SqliteStore({ file, classes: {}, clock: { now: () => 1000 } });
    expect(await store.peekToken('app', 'verifyEmail', 'hash', 1000)).toEqual({ userId: 'u1' });
    await store.close();
    const db = new DatabaseSync(file);
    expect(db.prepare('PRAGMA user_version').get()?.user_version).toBe(sqliteSchemaVersion);
    expect(db.prepare("SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'tokens' AND name = 'tokens_by_expiry'").get()).toBeDefined();
    db.close();
  });

  it('refuses a file whose schema is newer than this code', async () => {
    await new SqliteStore({ file, classes: {} }).close();
    const db = new DatabaseSync(file);
    db.exec(`PRAGMA user_version = ${sqliteSchemaVersion + 1}`);
    db.close();
    expect(() => new SqliteStore({ file, classes: {} })).toThrow(/newer than this Herald/);
  });

  it('works in memory', async () => {
    const store = new SqliteStore({ file: ':memory:', classes: conformanceClasses });
    const appId = newAppId();
    const thing = newObject({ title: 'x' });
    await store.insert(appId, 'Thing', thing);
    expect(await store.get(appId, 'Thing', thing.objectId)).toEqual(thing);
    await store.ping();
    await store.close();
  });

  it('answers 503 while another connection holds the write lock, and works once it is released', async () => {
    const store = new SqliteStore({ file, classes: conformanceClasses, busyTimeoutMs: 0 });
    const holder = new DatabaseSync(file);
    holder.exec('BEGIN IMMEDIATE');
    const appId = newAppId();
    const thing = newObject();
    const error = await store.insert(appId, 'Thing', thing).catch((reason: unknown) => reason);
    expect(error).toBeInstanceOf(ServiceUnavailableError);
    expect(error).toMatchObject({ status: 503, retryable: true, service: 'SQLite store' });
    // Refused before anything was written.
    expect(await store.get(appId, 'Thing', thing.objectId)).toBeNull();
    holder.exec('ROLLBACK');
    holder.close();
    await store.insert(appId, 'Thing', thing);
    expect(await store.get(appId, 'Thing', thing.objectId)).toEqual(thing);
    await store.close();
  });

  it('answers 503 after close, and close may be called twice', async () => {
    const store = new SqliteStore({ file, classes: {} });
    await store.close();
    await store.close();
    const closed = { status: 503, code: 503, retryable: true, service: 'SQLite store (closed)', message: 'SQLite store (closed) is unavailable; retry later' };
    await expect(store.ping()).rejects.toBeInstanceOf(ServiceUnavailableError);
    await expect(store.ping()).rejects.toMatchObject(closed);
    await expect(store.find(newAppId(), 'Thing', queryAll())).rejects.toMatchObject(closed);
  });

  it('gives each username to exactly one of four threads writing at once, and loses no update', async () => {
    const appId = newAppId();
    const counter = newObject({ value: 0 });
    const setup = new SqliteStore({ file, classes: {} });
    await setup.insert(appId, 'Counter', counter);
    await setup.close();
    const usernames = Array.from({ length: 40 }, (_, index) => `user${index}`);
    const increments = 400;
    const workers = Array.from({ length: 4 }, (_, worker) => {
      const job: ContentionJob = { file, appId, worker, usernames, counterId: counter.objectId, increments };
      return new Worker(new URL('./sqlite-contention-worker.ts', import.meta.url), { workerData: job });
    });
    try {
      await Promise.all(workers.map((worker) => once(worker, 'message')));
      const reports = workers.map(async (worker) => (await once(worker, 'message'))[0] as ContentionReport);
      for (const worker of workers) worker.postMessage('go');
      const results = await Promise.all(reports);
      expect(results.flatMap((report) => report.errors)).toEqual([]);
      expect(results.flatMap((report) => report.won).sort()).toEqual([...usernames].sort());
      expect(results.reduce((sum, report) => sum + report.duplicates, 0)).toBe(usernames.length * 3);
      const store = new SqliteStore({ file, classes: {} });
      expect((await store.find(appId, '_User', queryAll({ count: true, limit: 0 }))).count).toBe(usernames.length);
      expect((await store.get(appId, 'Counter', counter.objectId))?.value).toBe(4 * increments);
      await store.close();
    } finally {
      await Promise.all(workers.map((worker) => worker.terminate()));
    }
  });
});
