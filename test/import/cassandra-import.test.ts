import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { userClassDescriptor } from '../../src/accounts/user-class.ts';
import { verifyHostedHash } from '../../src/accounts/legacy-password.ts';
import { describeExportFile } from '../../src/import/export-file.ts';
import { writeImportState } from '../../src/import/import-state.ts';
import { CassandraStore } from '../../src/store/cassandra/cassandra-store.ts';
import { cassandraTestOptions, connectAdmin, dropKeyspace, testKeyspace } from '../store/cassandra-test-keyspace.ts';
import { exportDir, exportedInstallation, exportedUser, removeExportDirs, runImport, scannedInstallations, writeJsonArray, writeJsonLines } from './export-fixture.ts';

/**
 * The import on the clustered store: unique values claimed with lightweight
 * transactions, installations with their channel and device-type copies.
 * Needs the local Cassandra (vitest.unit.config.ts lists this file among
 * the service tests); without it, opening the store fails.
 */
const keyspace = testKeyspace();
let store: CassandraStore;

beforeAll(async () => {
  store = await CassandraStore.open({ ...cassandraTestOptions(keyspace), classes: { _User: userClassDescriptor }, installationShards: 8 });
}, 120_000);
afterAll(async () => {
  await store?.close();
  await dropKeyspace(keyspace);
  removeExportDirs();
}, 120_000);

describe('herald import on Cassandra', () => {
  it('imports users and installations, found by their unique values and channels, and finds them all present on a second run', async () => {
    const appId = 'cassimport1';
    const dir = exportDir();
    const users = Array.from({ length: 40 }, (_, index) => exportedUser(index + 1));
    const installations = Array.from({ length: 30 }, (_, index) => exportedInstallation(index + 1));
    const files = [writeJsonLines(join(dir, '_User.0.jsonl'), '_User', users), writeJsonArray(join(dir, '_Installation.json'), installations)];

    const first = await runImport(store, dir, appId, files, { concurrency: 32 });
    expect(first.tally).toEqual({
      _User: { read: 40, imported: 40, present: 0, rejected: 0 },
      _Installation: { read: 30, imported: 30, present: 0, rejected: 0 },
    });
    const user = await store.findByUnique(appId, '_User', { field: 'email', value: 'user17@example.com' });
    expect(user).toMatchObject({ objectId: users[16]?.objectId, username: 'user17', sessionToken: users[16]?.sessionToken });
    expect(verifyHostedHash(String(user?._hashedPassword), 'secret-17')).toBe(true);
    expect((await scannedInstallations(store, appId, { kind: 'channel', channel: 'sports' })).size).toBe(10);
    expect((await scannedInstallations(store, appId, { kind: 'deviceType', deviceType: 'ios' })).size).toBe(15);
    expect(await store.installations.findByDevice(appId, { field: 'installationId', value: 'android-7' })).toMatchObject({ objectId: installations[6]?.objectId });
    // The 15 registrationId entries went several to an unlogged batch: each is found under its own key.
    for (const installation of installations.filter((row) => row.deviceType === 'android')) {
      const holders = await store.installations.findByRegistrationId(appId, String(installation.registrationId));
      expect(holders.map((holder) => holder.objectId)).toEqual([installation.objectId]);
    }

    const second = await runImport(store, dir, appId, files, { concurrency: 32 });
    expect(second.tally).toEqual({
      _User: { read: 40, imported: 0, present: 40, rejected: 0 },
      _Installation: { read: 30, imported: 0, present: 30, rejected: 0 },
    });
  }, 120_000);

  it("imports users with large documents: a conditional batch of one partition's documents stays under Cassandra's batch size limit", async () => {
    const appId = 'cassimportbig';
    const dir = exportDir();
    // 6,000 characters each: 24 documents of one partition would be over 140 KB, past the node's 50 KiB batch_size_fail_threshold.
    const users = Array.from({ length: 1000 }, (_, index) => exportedUser(index + 1, { biography: `${String(index)}:`.padEnd(6000, 'x') }));
    const summary = await runImport(store, dir, appId, [writeJsonLines(join(dir, '_User.0.jsonl'), '_User', users)], { concurrency: 32 });
    expect(summary.tally._User).toEqual({ read: 1000, imported: 1000, present: 0, rejected: 0 });
    const last = await store.findByUnique(appId, '_User', { field: 'username', value: 'user1000' });
    expect(String(last?.biography)).toHaveLength(6000);
  }, 120_000);

  it('refuses a user whose value another holds, whole, and lets the first of two rows win', async () => {
    const appId = 'cassimport2';
    const dir = exportDir();
    const first = exportedUser(1, { email: 'shared@example.com', mobilePhoneNumber: '+15550001' });
    const second = exportedUser(2, { email: 'shared@example.com', mobilePhoneNumber: '+15550002' });
    const summary = await runImport(store, dir, appId, [writeJsonLines(join(dir, '_User.0.jsonl'), '_User', [first, second, exportedUser(3)])], { concurrency: 32 });

    expect(summary.tally._User).toEqual({ read: 3, imported: 2, present: 0, rejected: 1 });
    expect((await store.findByUnique(appId, '_User', { field: 'email', value: 'shared@example.com' }))?.objectId).toBe(first.objectId);
    for (const key of [
      { field: 'mobilePhoneNumber', value: '+15550002' },
      { field: 'username', value: 'user2' },
      { field: 'sessionToken', value: String(second.sessionToken) },
    ]) {
      expect(await store.findByUnique(appId, '_User', key), key.field).toBeNull();
    }
    expect(await store.get(appId, '_User', String(second.objectId))).toBeNull();
  }, 120_000);

  it('puts back the channel entries of installations an interrupted run wrote after its last checkpoint', async () => {
    const appId = 'cassimport3';
    const dir = exportDir();
    const installations = Array.from({ length: 12 }, (_, index) => exportedInstallation(index + 1, { channels: ['resume'] }));
    const path = writeJsonLines(join(dir, '_Installation.0.jsonl'), '_Installation', installations);
    await runImport(store, dir, appId, [path]);
    // A run that stopped after writing the rows but before their index entries, and before any checkpoint: each row
    // lists the entries its revision adds, at a timestamp none of them got (the removal below stands for their absence).
    const admin = await connectAdmin();
    try {
      for (const installation of installations.slice(0, 5)) {
        const key = [appId, store.installations.shardOf(String(installation.objectId)), installation.objectId];
        await admin.execute(`DELETE FROM ${keyspace}.installations_by_channel WHERE app_id = ? AND channel = 'resume' AND shard = ? AND object_id = ?`, key, { prepare: true });
        const added = ['c:resume', `t:${String(installation.deviceType)}`];
        await admin.execute(`UPDATE ${keyspace}.installations SET ts = ?, added = ? WHERE app_id = ? AND shard = ? AND object_id = ?`, [Date.now() * 1000 + 1_000_000, added, ...key], {
          prepare: true,
        });
      }
    } finally {
      await admin.shutdown();
    }
    expect((await scannedInstallations(store, appId, { kind: 'channel', channel: 'resume' })).size).toBe(7);
    const file = await describeExportFile(path);
    writeImportState(join(dir, 'state.json'), {
      version: 1,
      appId,
      files: { [path]: { fingerprint: file.fingerprint, offset: file.dataStart.offset, line: file.dataStart.line, done: false } },
      tally: {},
      rejectBytes: 0,
      inFlightRows: 8,
    });

    const resumed = await runImport(store, dir, appId, [path]);
    expect(resumed.tally._Installation).toEqual({ read: 12, imported: 0, present: 12, rejected: 0 });
    expect((await scannedInstallations(store, appId, { kind: 'channel', channel: 'resume' })).size).toBe(12);
  }, 120_000);

  it('writes nothing when run again: every document, claim and index entry keeps its write time', async () => {
    const appId = 'cassimport4';
    const dir = exportDir();
    const users = Array.from({ length: 60 }, (_, index) => exportedUser(index + 1, index % 2 === 0 ? { mobilePhoneNumber: `+1555${String(index).padStart(6, '0')}` } : {}));
    const installations = Array.from({ length: 60 }, (_, index) => exportedInstallation(index + 1));
    const files = [writeJsonLines(join(dir, '_User.0.jsonl'), '_User', users), writeJsonLines(join(dir, '_Installation.0.jsonl'), '_Installation', installations)];
    await runImport(store, dir, appId, files, { concurrency: 32 });
    const before = await writeTimes(appId);
    // Every user's username, email, session token and (for half) mobile number; every device's token or installationId.
    expect(before.claims).toHaveLength(60 * 3 + 30 + 60);
    expect(before.objects).toHaveLength(60);
    expect(before.installations).toHaveLength(60);

    const again = await runImport(store, dir, appId, files, { concurrency: 32 });
    expect(again.tally).toEqual({
      _User: { read: 60, imported: 0, present: 60, rejected: 0 },
      _Installation: { read: 60, imported: 0, present: 60, rejected: 0 },
    });
    expect(await writeTimes(appId)).toEqual(before);
  }, 120_000);

  it("keeps a save and a delete made right after an installation's import, though the importing host's clock runs 45 s ahead", async () => {
    const appId = 'cassimport7';
    const dir = exportDir();
    const installations = Array.from({ length: 6 }, (_, index) => exportedInstallation(index + 1));
    const path = writeJsonLines(join(dir, '_Installation.0.jsonl'), '_Installation', installations);
    // The import's clock only: the saves and deletes below take their timestamps from Cassandra's Paxos ballots.
    const realNow = Date.now.bind(Date);
    const ahead = vi.spyOn(Date, 'now').mockImplementation(() => realNow() + 45_000);
    try {
      expect((await runImport(store, dir, appId, [path], { concurrency: 32 })).tally._Installation).toEqual({ read: 6, imported: 6, present: 0, rejected: 0 });
    } finally {
      ahead.mockRestore();
    }
    const [saved, deleted] = [String(installations[0]?.objectId), String(installations[1]?.objectId)];
    expect(await store.installations.update(appId, saved, [{ op: 'set', path: ['badge'], value: 7 }], { updatedAt: new Date().toISOString() })).toMatchObject({ badge: 7 });
    expect(await store.installations.delete(appId, deleted)).toBe(true);

    expect(await store.installations.get(appId, saved)).toMatchObject({ objectId: saved, badge: 7 });
    expect(await store.installations.get(appId, deleted)).toBeNull();
    expect(await store.installations.get(appId, String(installations[2]?.objectId))).toMatchObject({ objectId: installations[2]?.objectId, timeZone: 'Asia/Shanghai' });
    // A run again finds the saved one present and leaves it as saved.
    expect((await runImport(store, dir, appId, [path], { concurrency: 32 })).tally._Installation).toMatchObject({ read: 6, present: 5 });
    expect(await store.installations.get(appId, saved)).toMatchObject({ badge: 7 });
  }, 120_000);

  it('refuses a user whose username a user stored before the import holds, and leaves both as they were', async () => {
    const appId = 'cassimport5';
    const dir = exportDir();
    const stored = { objectId: 'storedbefore000000000001', username: 'user2', email: 'owner@example.com', createdAt: '2020-01-01T00:00:00.000Z', updatedAt: '2020-01-01T00:00:00.000Z' };
    await store.insert(appId, '_User', stored);
    const rows = [exportedUser(1), exportedUser(2, { mobilePhoneNumber: '+15550002' }), exportedUser(3)];
    const summary = await runImport(store, dir, appId, [writeJsonLines(join(dir, '_User.0.jsonl'), '_User', rows)], { concurrency: 32 });

    expect(summary.tally._User).toEqual({ read: 3, imported: 2, present: 0, rejected: 1 });
    expect(await store.findByUnique(appId, '_User', { field: 'username', value: 'user2' })).toEqual(stored);
    expect(await store.get(appId, '_User', String(rows[1]?.objectId))).toBeNull();
    // Nothing of the refused row holds a value: its other values are free for whoever comes next.
    for (const key of [
      { field: 'email', value: 'user2@example.com' },
      { field: 'mobilePhoneNumber', value: '+15550002' },
      { field: 'sessionToken', value: String(rows[1]?.sessionToken) },
    ]) {
      expect(await store.findByUnique(appId, '_User', key), key.field).toBeNull();
    }
    await store.insert(appId, '_User', { objectId: 'latecomer000000000000001', username: 'late', email: 'user2@example.com', createdAt: stored.createdAt, updatedAt: stored.updatedAt });
    expect((await store.findByUnique(appId, '_User', { field: 'email', value: 'user2@example.com' }))?.objectId).toBe('latecomer000000000000001');
  }, 120_000);

  it('refuses an installation whose device token an installation stored before holds', async () => {
    const appId = 'cassimport6';
    const dir = exportDir();
    const token = 'ab'.repeat(32);
    const stored = { objectId: 'storeddevice000000000001', deviceType: 'ios', deviceToken: token, createdAt: '2020-01-01T00:00:00.000Z', updatedAt: '2020-01-01T00:00:00.000Z' };
    await store.installations.insert(appId, stored);
    const rows = [exportedInstallation(2, { deviceToken: token }), exportedInstallation(4)];
    const summary = await runImport(store, dir, appId, [writeJsonLines(join(dir, '_Installation.0.jsonl'), '_Installation', rows)], { concurrency: 32 });

    expect(summary.tally._Installation).toEqual({ read: 2, imported: 1, present: 0, rejected: 1 });
    expect(await store.installations.findByDevice(appId, { field: 'deviceToken', value: token })).toEqual(stored);
    expect(await store.installations.get(appId, String(rows[0]?.objectId))).toBeNull();
  }, 120_000);
});

/** The write time of every document, installation row and claim of an app, and its channel entries, in a stable order. */
async function writeTimes(appId: string): Promise<Record<string, string[]>> {
  const admin = await connectAdmin();
  try {
    const read = async (query: string): Promise<string[]> => {
      const result = await admin.execute(query, [appId], { prepare: true, fetchSize: 10_000 });
      return result.rows.map((row) => row.values().map(String).join(' ')).sort();
    };
    return {
      objects: await read(`SELECT object_id, WRITETIME(doc) FROM ${keyspace}.objects WHERE app_id = ? ALLOW FILTERING`),
      installations: await read(`SELECT object_id, WRITETIME(doc) FROM ${keyspace}.installations WHERE app_id = ? ALLOW FILTERING`),
      claims: await read(`SELECT field, value, object_id, claim_id, WRITETIME(claim_id) FROM ${keyspace}.unique_claims WHERE app_id = ? ALLOW FILTERING`),
      channels: await read(`SELECT channel, object_id FROM ${keyspace}.installations_by_channel WHERE app_id = ? ALLOW FILTERING`),
    };
  } finally {
    await admin.shutdown();
  }
}
