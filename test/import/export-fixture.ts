import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { hostedPasswordHash } from '../../src/accounts/legacy-password.ts';
import { userClassDescriptor } from '../../src/accounts/user-class.ts';
import { systemClock } from '../../src/core/clock.ts';
import type { InstallationIndex, InstallationPage } from '../../src/core/ports/installation-store.ts';
import type { StoredObject } from '../../src/core/ports/object-store.ts';
import { queryAll } from '../../src/query/query.ts';
import { ImportRun, type ImportOptions, type ImportSummary } from '../../src/import/import-run.ts';
import type { ImportStore } from '../../src/import/import-store.ts';
import { SqliteStore } from '../../src/store/sqlite/sqlite-store.ts';

/** The worked example of the hosted service's documentation: this salt and the password "password" give this hash. */
export const documentedSalt = 'h60d8x797d3oa0naxybxxv9bn7xpt2yiowz68mpiwou7gwr2';
export const documentedHash = 'tA7BLW+NK0UeARng0693gCaVnljkglCB9snqlpCSUKjx2RgYp8VZZOQt0S5iUtlDrkJXfT3gknS4rRqjYsd/Ug==';

const made: string[] = [];

/** A fresh folder for one test's export files, reject file and state file; `removeExportDirs` removes them. */
export function exportDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'herald-import-'));
  made.push(dir);
  return dir;
}

export function removeExportDirs(): void {
  for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true });
}

/** An embedded store of its own, with the `_User` rules Herald runs with. */
export function openTestStore(dir: string, installationShards = 8): SqliteStore {
  return new SqliteStore({ file: join(dir, 'herald.sqlite'), classes: { _User: userClassDescriptor }, installationShards });
}

/** objectIds as the hosted service makes them: 24 hex digits. */
export function exportedId(): string {
  return randomBytes(12).toString('hex');
}

/** A `_User` row as the console exports it, with the password "secret-<n>" hashed the hosted service's way. */
export function exportedUser(n: number, fields: Record<string, unknown> = {}): Record<string, unknown> {
  const salt = `salt${n}`;
  const objectId = typeof fields.objectId === 'string' ? fields.objectId : `u${String(n).padStart(23, '0')}`;
  return {
    salt,
    password: hostedPasswordHash(salt, `secret-${n}`),
    sessionToken: `session${n}x${objectId}`,
    username: `user${n}`,
    email: `user${n}@example.com`,
    emailVerified: n % 2 === 0,
    mobilePhoneVerified: false,
    ACL: { '*': { read: true }, [objectId]: { read: true, write: true } },
    createdAt: '2021-03-04T05:06:07.089Z',
    updatedAt: '2022-03-04T05:06:07.089Z',
    ...fields,
    objectId,
  };
}

/** An `_Installation` row as the console exports it: iOS with a device token, or Android with an installationId. */
export function exportedInstallation(n: number, fields: Record<string, unknown> = {}): Record<string, unknown> {
  const ios = n % 2 === 0;
  return {
    objectId: `i${String(n).padStart(23, '0')}`,
    deviceType: ios ? 'ios' : 'android',
    ...(ios ? { deviceToken: n.toString(16).padStart(64, '0') } : { installationId: `android-${n}`, registrationId: `fcm-${n}`, vendor: 'fcm' }),
    channels: n % 3 === 0 ? ['news', 'sports'] : ['news'],
    timeZone: 'Asia/Shanghai',
    createdAt: '2021-03-04T05:06:07.089Z',
    updatedAt: '2022-03-04T05:06:07.089Z',
    ...fields,
  };
}

/** Writes rows as the console exports them: a `#filetype` header, then JSON Lines. Raw strings are written as they are. */
export function writeJsonLines(path: string, className: string, rows: readonly (Record<string, unknown> | string)[]): string {
  const lines = rows.map((row) => (typeof row === 'string' ? row : JSON.stringify(row)));
  writeFileSync(path, `#filetype:JSON-streaming {"type":"Class","class":"${className}"}\n${lines.join('\n')}\n`);
  return path;
}

/** Writes rows as a JSON array, one element a line. */
export function writeJsonArray(path: string, rows: readonly Record<string, unknown>[]): string {
  writeFileSync(path, `[\n${rows.map((row) => JSON.stringify(row)).join(',\n')}\n]\n`);
  return path;
}

/** Runs an import into `appId` with the reject and state files in `dir`. */
export function runImport(store: ImportStore, dir: string, appId: string, files: string[], options: Partial<ImportOptions> = {}): Promise<ImportSummary> {
  let tokens = 0;
  return new ImportRun(
    {
      appId,
      files,
      dryRun: false,
      rejectsPath: join(dir, 'rejects.jsonl'),
      statePath: join(dir, 'state.json'),
      restart: false,
      concurrency: 8,
      installationBatch: 16,
      ...options,
    },
    { store, clock: systemClock, newSessionToken: () => `generated-${(tokens += 1)}-${randomBytes(4).toString('hex')}` },
  ).run();
}

/** Every stored object of a class, by objectId. */
export async function storedObjects(store: Pick<SqliteStore, 'find'>, appId: string, className: string): Promise<Map<string, StoredObject>> {
  const { results } = await store.find(appId, className, queryAll({ limit: 1_000_000 }));
  return new Map(results.map((object) => [object.objectId, object]));
}

/** The installations of an app in one index (all, or one channel's subscribers), read shard by shard as a push reads them. */
export async function scannedInstallations(
  store: Pick<SqliteStore, 'installations'>,
  appId: string,
  index: InstallationIndex = { kind: 'all' },
): Promise<Map<string, StoredObject>> {
  const found = new Map<string, StoredObject>();
  for (let shard = 0; shard < store.installations.shardCount; shard += 1) {
    let after: string | null = null;
    do {
      const page: InstallationPage = await store.installations.scanShard(appId, { shard, index, after, limit: 500 });
      for (const installation of page.installations) found.set(installation.objectId, installation);
      after = page.next;
    } while (after !== null);
  }
  return found;
}

/**
 * A large `_User` export, written fast: every user shares the documented
 * salt and hash (password "password"), so no hash is computed per row.
 */
export function writeManyUsers(path: string, count: number): string {
  const lines = ['#filetype:JSON-streaming {"type":"Class","class":"_User"}'];
  for (let n = 0; n < count; n += 1) {
    const objectId = n.toString(16).padStart(24, '0');
    lines.push(
      JSON.stringify({
        salt: documentedSalt,
        password: documentedHash,
        sessionToken: `bulk-session-${objectId}`,
        username: `bulk${n}`,
        email: `bulk${n}@example.com`,
        emailVerified: false,
        ACL: { '*': { read: true }, [objectId]: { read: true, write: true } },
        objectId,
        createdAt: '2021-03-04T05:06:07.089Z',
        updatedAt: '2022-03-04T05:06:07.089Z',
      }),
    );
  }
  writeFileSync(path, `${lines.join('\n')}\n`);
  return path;
}
