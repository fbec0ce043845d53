import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { afterEach, describe, expect, it } from 'vitest';
import { verifyHostedHash } from '../../src/accounts/legacy-password.ts';
import type { StoredObject } from '../../src/core/ports/object-store.ts';
import { ImportStateError } from '../../src/import/import-state.ts';
import type { ImportStore } from '../../src/import/import-store.ts';
import type { RejectEntry } from '../../src/import/reject-log.ts';
import type { SqliteStore } from '../../src/store/sqlite/sqlite-store.ts';
import {
  exportDir,
  exportedInstallation,
  exportedUser,
  openTestStore,
  removeExportDirs,
  runImport,
  scannedInstallations,
  storedObjects,
  writeJsonArray,
  writeJsonLines,
} from './export-fixture.ts';

const appId = 'importapp';
const opened: SqliteStore[] = [];

function newStore(dir: string): SqliteStore {
  const store = openTestStore(dir);
  opened.push(store);
  return store;
}

afterEach(async () => {
  for (const store of opened.splice(0)) await store.close();
  removeExportDirs();
});

function rejectsIn(dir: string): RejectEntry[] {
  const path = join(dir, 'rejects.jsonl');
  if (!existsSync(path)) return [];
  return readFileSync(path, 'utf8')
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line) as RejectEntry);
}

/** The store, its writes counted; `beforeWrite` runs before each user or installation write (to slow one, or to stop the import). */
function observed(store: SqliteStore, beforeWrite: (object: StoredObject, writes: number) => Promise<void> | void = () => undefined): ImportStore & { writes: () => number } {
  let writes = 0;
  const count = async (object: StoredObject): Promise<void> => {
    writes += 1;
    await beforeWrite(object, writes);
  };
  return {
    writes: () => writes,
    get: (...args) => store.get(...args),
    findByUnique: (...args) => store.findByUnique(...args),
    insert: async (app, className, object) => {
      await count(object);
      await store.insert(app, className, object);
    },
    installations: {
      get: (...args) => store.installations.get(...args),
      findByDevice: (...args) => store.installations.findByDevice(...args),
      update: (...args) => store.installations.update(...args),
      insert: async (app, installation) => {
        await count(installation);
        await store.installations.insert(app, installation);
      },
      insertMany: async (app, installations) => {
        for (const installation of installations) await count(installation);
        await store.installations.insertMany(app, installations);
      },
    },
  };
}

describe('herald import', () => {
  it('stores exported users and installations with their ids, fields and unique values, found as a login and a push find them', async () => {
    const dir = exportDir();
    const store = newStore(dir);
    const users = [1, 2, 3].map((n) => exportedUser(n, n === 3 ? { authData: { weixin: { openid: 'wx-3', access_token: 't', expires_in: 7200 } }, mobilePhoneNumber: '+15550003' } : {}));
    const installations = [1, 2, 3, 4].map((n) => exportedInstallation(n));
    const summary = await runImport(store, dir, appId, [
      writeJsonLines(join(dir, '_User.0.jsonl'), '_User', users),
      writeJsonArray(join(dir, '_Installation.json'), installations),
    ]);

    expect(summary).toMatchObject({ status: 'done', statePath: null });
    expect(summary.tally).toEqual({
      _User: { read: 3, imported: 3, present: 0, rejected: 0 },
      _Installation: { read: 4, imported: 4, present: 0, rejected: 0 },
    });
    const third = await store.findByUnique(appId, '_User', { field: 'authData.weixin.uid', value: 'wx-3' });
    expect(third).toMatchObject({ objectId: users[2]?.objectId, username: 'user3', createdAt: '2021-03-04T05:06:07.089Z', updatedAt: '2022-03-04T05:06:07.089Z' });
    for (const key of [
      { field: 'username', value: 'user3' },
      { field: 'email', value: 'user3@example.com' },
      { field: 'mobilePhoneNumber', value: '+15550003' },
      { field: 'sessionToken', value: String(users[2]?.sessionToken) },
    ]) {
      expect((await store.findByUnique(appId, '_User', key))?.objectId, key.field).toBe(users[2]?.objectId);
    }
    expect(verifyHostedHash(String(third?._hashedPassword), 'secret-3')).toBe(true);

    const sports = await scannedInstallations(store, appId, { kind: 'channel', channel: 'sports' });
    expect([...sports.keys()]).toEqual([installations[2]?.objectId]);
    expect((await scannedInstallations(store, appId, { kind: 'channel', channel: 'news' })).size).toBe(4);
    expect(await store.installations.findByDevice(appId, { field: 'installationId', value: 'android-1' })).toMatchObject({ objectId: installations[0]?.objectId, registrationId: 'fcm-1' });
    expect(existsSync(join(dir, 'state.json'))).toBe(false);
  });

  it('finds every row already stored when run a second time, and writes nothing', async () => {
    const dir = exportDir();
    const store = newStore(dir);
    const files = [
      writeJsonLines(join(dir, '_User.0.jsonl'), '_User', [1, 2, 3, 4, 5].map((n) => exportedUser(n))),
      writeJsonLines(join(dir, '_Installation.0.jsonl'), '_Installation', [1, 2, 3].map((n) => exportedInstallation(n))),
    ];
    await runImport(store, dir, appId, files);
    const usersBefore = await storedObjects(store, appId, '_User');
    const installationsBefore = await scannedInstallations(store, appId);

    const again = observed(store);
    const second = await runImport(again, dir, appId, files);
    expect(second.status).toBe('done');
    expect(second.tally).toEqual({
      _User: { read: 5, imported: 0, present: 5, rejected: 0 },
      _Installation: { read: 3, imported: 0, present: 3, rejected: 0 },
    });
    expect(again.writes()).toBe(0);
    expect(await storedObjects(store, appId, '_User')).toEqual(usersBefore);
    expect(await scannedInstallations(store, appId)).toEqual(installationsBefore);
  });

  it('writes each row it cannot take to the reject file with the file, the line, the code and the reason', async () => {
    const dir = exportDir();
    const store = newStore(dir);
    const file = writeJsonLines(join(dir, '_User.0.jsonl'), '_User', [
      exportedUser(1),
      '{"objectId": "broken',
      exportedUser(2, { email: 'nobody-at-example' }),
      '[1, 2]',
      exportedUser(3),
    ]);
    const summary = await runImport(store, dir, appId, [file]);

    expect(summary.tally._User).toEqual({ read: 5, imported: 2, present: 0, rejected: 3 });
    const rejects = rejectsIn(dir);
    expect(rejects).toEqual([
      { file, line: 3, class: '_User', code: 107, reason: expect.stringMatching(/^the row is not JSON: /) as unknown, row: '{"objectId": "broken' },
      { file, line: 4, class: '_User', objectId: exportedUser(2).objectId, code: 125, reason: 'invalid email address: nobody-at-example', row: exportedUser(2, { email: 'nobody-at-example' }) },
      { file, line: 5, class: '_User', code: 107, reason: 'the row is not a JSON object', row: [1, 2] },
    ]);
    expect(await store.get(appId, '_User', String(exportedUser(2).objectId))).toBeNull();
  });

  it('rejects an installation whose user is an array or nests a user pointer, naming why, and imports the rest', async () => {
    const dir = exportDir();
    const store = newStore(dir);
    const pointer = { __type: 'Pointer', className: '_User', objectId: 'victim' };
    const rows = [
      exportedInstallation(2, { user: pointer }),
      exportedInstallation(4, { user: [pointer] }),
      exportedInstallation(6, { owners: { list: [pointer] } }),
      exportedInstallation(8),
    ];
    const file = writeJsonLines(join(dir, '_Installation.0.jsonl'), '_Installation', rows);
    const summary = await runImport(store, dir, appId, [file]);

    expect(summary.tally._Installation).toEqual({ read: 4, imported: 2, present: 0, rejected: 2 });
    expect(rejectsIn(dir)).toEqual([
      { file, line: 3, class: '_Installation', objectId: rows[1]!.objectId, code: 111, reason: expect.stringMatching(/^user must be a Pointer to _User/) as unknown, row: rows[1] },
      { file, line: 4, class: '_Installation', objectId: rows[2]!.objectId, code: 111, reason: expect.stringMatching(/^owners holds a _User pointer inside an array, an object or an __op/) as unknown, row: rows[2] },
    ]);
    expect((await store.installations.get(appId, String(rows[0]!.objectId)))?.user).toEqual(pointer);
    expect(await store.installations.get(appId, String(rows[1]!.objectId))).toBeNull();
    expect(await store.installations.get(appId, String(rows[3]!.objectId))).not.toBeNull();
  });

  it('refuses a user whose unique value another user holds, whole: none of its other values stays claimed', async () => {
    const dir = exportDir();
    const store = newStore(dir);
    await store.insert(appId, '_User', { objectId: 'signedUp', createdAt: '2024-01-01T00:00:00.000Z', updatedAt: '2024-01-01T00:00:00.000Z', username: 'taken' });
    const clashing = exportedUser(7, { username: 'taken', email: 'free@example.com', mobilePhoneNumber: '+15550007' });
    const summary = await runImport(store, dir, appId, [writeJsonLines(join(dir, '_User.0.jsonl'), '_User', [clashing])]);

    expect(summary.tally._User).toEqual({ read: 1, imported: 0, present: 0, rejected: 1 });
    expect(rejectsIn(dir)[0]).toMatchObject({ objectId: clashing.objectId, code: 202, reason: expect.stringContaining('Username has already been taken') as unknown });
    for (const key of [
      { field: 'email', value: 'free@example.com' },
      { field: 'mobilePhoneNumber', value: '+15550007' },
      { field: 'sessionToken', value: String(clashing.sessionToken) },
    ]) {
      expect(await store.findByUnique(appId, '_User', key), key.field).toBeNull();
    }
    // The values are free: another user can take them.
    await store.insert(appId, '_User', { objectId: 'later', createdAt: '2024-01-01T00:00:00.000Z', updatedAt: '2024-01-01T00:00:00.000Z', email: 'free@example.com' });
  });

  it('lets the first of two rows claiming one value win, however many writes are in flight', async () => {
    const dir = exportDir();
    const store = newStore(dir);
    const first = exportedUser(1, { email: 'shared@example.com' });
    const second = exportedUser(2, { email: 'shared@example.com' });
    // The first row's write is the slow one: without ordering, the second would win.
    const slowFirst = observed(store, async (object) => {
      if (object.objectId === first.objectId) await delay(100);
    });
    const iosA = exportedInstallation(2);
    const iosB = exportedInstallation(4, { deviceToken: iosA.deviceToken });
    const summary = await runImport(
      slowFirst,
      dir,
      appId,
      [writeJsonLines(join(dir, '_User.0.jsonl'), '_User', [first, second, exportedUser(3)]), writeJsonLines(join(dir, '_Installation.0.jsonl'), '_Installation', [iosA, exportedInstallation(3), iosB])],
      { concurrency: 16 },
    );

    expect(summary.tally._User).toEqual({ read: 3, imported: 2, present: 0, rejected: 1 });
    expect((await store.findByUnique(appId, '_User', { field: 'email', value: 'shared@example.com' }))?.objectId).toBe(first.objectId);
    expect(summary.tally._Installation).toEqual({ read: 3, imported: 2, present: 0, rejected: 1 });
    expect((await store.installations.findByDevice(appId, { field: 'deviceToken', value: String(iosA.deviceToken) }))?.objectId).toBe(iosA.objectId);
    expect(rejectsIn(dir).map((entry) => [entry.objectId, entry.code])).toEqual([
      [second.objectId, 203],
      [iosB.objectId, 137],
    ]);
  });

  it('writes nothing on a dry run, and reports what it would import and reject', async () => {
    const dir = exportDir();
    const store = newStore(dir);
    await store.insert(appId, '_User', { objectId: 'signedUp', createdAt: '2024-01-01T00:00:00.000Z', updatedAt: '2024-01-01T00:00:00.000Z', username: 'user2' });
    const observedStore = observed(store);
    const summary = await runImport(
      observedStore,
      dir,
      appId,
      [
        writeJsonLines(join(dir, '_User.0.jsonl'), '_User', [exportedUser(1), exportedUser(2), 'nope']),
        writeJsonLines(join(dir, '_Installation.0.jsonl'), '_Installation', [exportedInstallation(1), exportedInstallation(2)]),
      ],
      { dryRun: true },
    );

    expect(summary).toMatchObject({ status: 'done', dryRun: true, rejectsPath: null, statePath: null });
    expect(summary.tally).toEqual({
      _User: { read: 3, imported: 1, present: 0, rejected: 2 },
      _Installation: { read: 2, imported: 2, present: 0, rejected: 0 },
    });
    expect(summary.sampleRejects.map((entry) => [entry.line, entry.code])).toEqual([
      [3, 202],
      [4, 107],
    ]);
    expect(observedStore.writes()).toBe(0);
    expect([...(await storedObjects(store, appId, '_User')).keys()]).toEqual(['signedUp']);
    expect((await scannedInstallations(store, appId)).size).toBe(0);
    expect(existsSync(join(dir, 'rejects.jsonl'))).toBe(false);
    expect(existsSync(join(dir, 'state.json'))).toBe(false);
  });

  for (const stopAt of [1, 23, 57]) {
    it(`resumes after being stopped at write ${stopAt}, importing every row exactly once`, async () => {
      const dir = exportDir();
      const store = newStore(dir);
      const users = Array.from({ length: 60 }, (_, index) => exportedUser(index + 1, index % 10 === 9 ? { username: 'user1' } : {}));
      const installations = Array.from({ length: 45 }, (_, index) => exportedInstallation(index + 1));
      const files = [writeJsonLines(join(dir, '_User.0.jsonl'), '_User', users), writeJsonArray(join(dir, '_Installation.json'), installations)];
      const stop = new AbortController();
      const stopping = observed(store, (_object, writes) => {
        if (writes === stopAt) stop.abort();
      });

      const first = await runImport(stopping, dir, appId, files, { signal: stop.signal });
      expect(first.status).toBe('interrupted');
      expect(first.statePath).toBe(join(dir, 'state.json'));
      expect(existsSync(join(dir, 'state.json'))).toBe(true);

      const second = await runImport(store, dir, appId, files);
      expect(second.status).toBe('done');
      // The second run went on from the checkpoint: the two runs settled each row once between them.
      expect(first.rowsThisRun + second.rowsThisRun).toBe(105);
      expect(second.rowsThisRun).toBeLessThan(105 - stopAt + 20);
      // Every row read once over both runs; a row written just before the stop is found present.
      expect(second.tally._User).toMatchObject({ read: 60, rejected: 6 });
      expect((second.tally._User?.imported ?? 0) + (second.tally._User?.present ?? 0)).toBe(54);
      expect((second.tally._Installation?.imported ?? 0) + (second.tally._Installation?.present ?? 0)).toBe(45);
      expect((await storedObjects(store, appId, '_User')).size).toBe(54);
      expect((await scannedInstallations(store, appId)).size).toBe(45);
      expect((await scannedInstallations(store, appId, { kind: 'channel', channel: 'sports' })).size).toBe(15);
      // Each rejected row is in the reject file once.
      expect(rejectsIn(dir).map((entry) => entry.line)).toEqual([11, 21, 31, 41, 51, 61]);
      expect(existsSync(join(dir, 'state.json'))).toBe(false);
    });
  }

  it('refuses to resume a file that changed since the interruption, unless told to start again', async () => {
    const dir = exportDir();
    const store = newStore(dir);
    const path = writeJsonLines(join(dir, '_User.0.jsonl'), '_User', [1, 2, 3, 4].map((n) => exportedUser(n)));
    const stop = new AbortController();
    await runImport(observed(store, () => stop.abort()), dir, appId, [path], { signal: stop.signal, concurrency: 1 });
    writeJsonLines(path, '_User', [1, 2, 3, 4, 5].map((n) => exportedUser(n)));

    await expect(runImport(store, dir, appId, [path])).rejects.toThrow(ImportStateError);
    await expect(runImport(store, dir, appId, [path])).rejects.toThrow(/changed since the interrupted import began.*--restart/);
    const restarted = await runImport(store, dir, appId, [path], { restart: true });
    expect(restarted.tally._User).toEqual({ read: 5, imported: 4, present: 1, rejected: 0 });
  });

  it('refuses a state file of another app', async () => {
    const dir = exportDir();
    const store = newStore(dir);
    const path = writeJsonLines(join(dir, '_User.0.jsonl'), '_User', [exportedUser(1), exportedUser(2)]);
    const stop = new AbortController();
    await runImport(observed(store, () => stop.abort()), dir, appId, [path], { signal: stop.signal, concurrency: 1 });
    await expect(runImport(store, dir, 'otherapp', [path])).rejects.toThrow(/belongs to an import into app importapp/);
  });

  it('skips the classes Herald does not hold, saying why, and reads the rest', async () => {
    const dir = exportDir();
    const store = newStore(dir);
    writeFileSync(join(dir, '_User_schema.json'), '{"username": {"type": "String"}}');
    const summary = await runImport(store, dir, appId, [
      writeJsonLines(join(dir, '_Role.0.jsonl'), '_Role', [{ objectId: 'r1', name: 'admins', createdAt: '2021-01-01T00:00:00.000Z' }]),
      writeJsonLines(join(dir, '_Conversation.0.jsonl'), '_Conversation', [{ objectId: 'c1', createdAt: '2021-01-01T00:00:00.000Z' }]),
      join(dir, '_User_schema.json'),
      writeJsonLines(join(dir, '_User.0.jsonl'), '_User', [exportedUser(1)]),
    ]);
    expect(summary.skippedFiles).toEqual([
      { file: join(dir, '_Role.0.jsonl'), className: '_Role', reason: expect.stringMatching(/^Herald has no roles yet/) as unknown },
      { file: join(dir, '_Conversation.0.jsonl'), className: '_Conversation', reason: expect.stringMatching(/users and installations only/) as unknown },
      { file: join(dir, '_User_schema.json'), className: null, reason: expect.stringMatching(/cannot tell its class/) as unknown },
    ]);
    expect(summary.tally).toEqual({ _User: { read: 1, imported: 1, present: 0, rejected: 0 } });
  });
});
