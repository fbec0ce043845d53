import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { quickEngine } from '../push/support/push-herald.ts';
import { documentedHash, documentedSalt, writeJsonLines } from '../import/export-fixture.ts';
import { eventually } from '../support/eventually.ts';
import { runHeraldCommand } from '../support/herald-process.ts';
import { startPushGatewayFakes, type PushGatewayFakes } from '../support/push-gateways.ts';
import { idOf, initSdk } from '../support/sdk-client.ts';
import { sharedCassandraStore, testBackends } from '../support/test-backends.ts';
import { startTestHerald, testApp, type TestHerald } from '../support/test-herald.ts';

/**
 * docs/migrating.md, followed step by step: the app's own id and keys and its
 * push credentials in Herald's config (1, 4), the console's export files (2),
 * `herald import` with --dry-run, then for real, then once more (3), the
 * shipped SDK pointed at Herald with `serverURLs` (5), an imported user
 * logging in with the password the hosted service hashed, and a push reaching
 * the imported devices through the fake APNs and FCM. On the embedded store,
 * and on Cassandra in the distributed project.
 */
const dir = mkdtempSync(join(tmpdir(), 'herald-guide-'));
const exportFolder = join(dir, 'export');
const configFile = join(dir, 'herald.json');
const hoursAgo = (hours: number) => new Date(Date.now() - hours * 3_600_000).toISOString();

const user = {
  objectId: '5f0c3a9be5a1f20006a1b2c3',
  username: 'moved',
  email: 'moved@example.com',
  emailVerified: true,
  // The hosted documentation's worked example: this salt and hash are of the password "password".
  salt: documentedSalt,
  password: documentedHash,
  ACL: { '*': { read: true }, '5f0c3a9be5a1f20006a1b2c3': { read: true, write: true } },
  createdAt: '2020-07-13T08:00:27.445Z',
  updatedAt: '2024-02-01T10:00:00.000Z',
};
const iphone = {
  objectId: '5f0c3b11e5a1f20006a1b2c4',
  deviceType: 'ios',
  deviceToken: 'a1'.repeat(32),
  channels: ['movers'],
  owner: { __type: 'Pointer', className: '_User', objectId: user.objectId },
  createdAt: '2020-07-13T08:01:00.000Z',
  // Installations are saved by the SDK at each launch: an active device was saved lately.
  updatedAt: hoursAgo(30),
};
const android = {
  objectId: '5f0c3b22e5a1f20006a1b2c5',
  deviceType: 'android',
  installationId: 'moved-android-1',
  registrationId: 'fcm-moved-android-1',
  vendor: 'fcm',
  channels: ['movers'],
  createdAt: '2021-01-02T03:04:05.000Z',
  updatedAt: hoursAgo(2),
};

let fakes: PushGatewayFakes;
let h: TestHerald;
const app = testApp({ name: 'Moved App' });

function engine() {
  return fakes.engine(quickEngine());
}

/** The store of the test project: SQLite in the data directory, or the distributed suites' Cassandra keyspace for the engine's shard count. */
function storeOption(): { store?: ReturnType<typeof sharedCassandraStore> } {
  return testBackends() === 'distributed' ? { store: sharedCassandraStore(engine().installationShards ?? 64) } : {};
}

/** `herald import --app <id> …` as the guide runs it, with the config file of step 1. */
function heraldImport(...args: string[]) {
  return runHeraldCommand(['import', '--app', app.id, '--rejects', join(dir, 'rejects.jsonl'), ...args], { HERALD_CONFIG: configFile, HERALD_LOG_LEVEL: 'warn' });
}

beforeAll(async () => {
  fakes = await startPushGatewayFakes();
  // Steps 1 and 4: the app's keys and push credentials, and the store the service will run on.
  Object.assign(app, { push: fakes.appPush });
  writeFileSync(configFile, JSON.stringify({ dataDir: dir, apps: [app], ...storeOption(), push: engine() }));
  // Step 2: the console's export, one JSON Lines file per class.
  mkdirSync(exportFolder);
  writeJsonLines(join(exportFolder, '_User.0.jsonl'), '_User', [user]);
  writeJsonLines(join(exportFolder, '_Installation.0.jsonl'), '_Installation', [iphone, android]);
}, 60_000);
afterAll(async () => {
  await h?.close();
  await fakes?.close();
  rmSync(dir, { recursive: true, force: true });
});

it('imports the export: a dry run writes nothing, the import takes every row, a second run finds them all present', async () => {
  const dryRun = await heraldImport('--dry-run', '--json', exportFolder);
  expect(dryRun.code, dryRun.output).toBe(0);
  // Nothing of the dry run is in the store: the import finds no row present.
  const imported = await heraldImport('--json', exportFolder);
  expect(imported.code, imported.output).toBe(0);
  const again = await heraldImport('--restart', '--json', exportFolder);
  expect(again.code, again.output).toBe(0);
  expect(summaryOf(dryRun.output)).toMatchObject({ dryRun: true, tally: { _User: { imported: 1 }, _Installation: { imported: 2 } } });
  expect(summaryOf(imported.output)).toMatchObject({ tally: { _User: { imported: 1, present: 0, rejected: 0 }, _Installation: { imported: 2, present: 0, rejected: 0 } } });
  expect(summaryOf(again.output)).toMatchObject({ tally: { _User: { imported: 0, present: 1 }, _Installation: { imported: 0, present: 2 } } });
}, 120_000);

it('serves the imported app to the shipped SDK: the old password logs in, and a push reaches the imported devices', async () => {
  h = await startTestHerald({ app, dataDir: dir, ...storeOption(), engine: engine() });
  const AV = initSdk(h);

  const loggedIn = await AV.User.logIn('moved', 'password');
  expect(idOf(loggedIn)).toBe(user.objectId);
  expect(loggedIn.get('email')).toBe(user.email);
  expect(loggedIn.createdAt?.toISOString()).toBe(user.createdAt);
  const stored = await h.herald.runtime.store.get(app.id, '_User', user.objectId);
  expect(String(stored?._hashedPassword), 'the hosted hash is replaced at the login').toMatch(/^\$argon2id\$/);
  await expect(AV.User.logIn('moved', 'Password')).rejects.toMatchObject({ code: 210 });

  await AV.Push.send({ channels: ['movers'], data: { alert: 'We moved' } }, { useMasterKey: true });
  await eventually(
    'the push at the imported iPhone and Android device',
    () => [fakes.apns.deliveriesTo(iphone.deviceToken).length, fakes.fcm.deliveriesTo(android.registrationId).length],
    ([apns, fcm]) => apns === 1 && fcm === 1,
    { timeoutMs: 30_000 },
  );
  expect(JSON.parse(fakes.apns.deliveriesTo(iphone.deviceToken)[0]?.payload.toString('utf8') ?? '{}')).toMatchObject({ aps: { alert: 'We moved' } });
}, 120_000);

/** The summary `--json` prints: one JSON object, the only text starting at the beginning of a line with `{`. */
function summaryOf(output: string): Record<string, unknown> {
  const start = output.search(/^\{$/m);
  const end = output.search(/^\}$/m);
  if (start < 0 || end < start) throw new Error(`no JSON summary in: ${output}`);
  return JSON.parse(output.slice(start, end + 1)) as Record<string, unknown>;
}
