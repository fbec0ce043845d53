import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { ImportState } from '../../src/import/import-state.ts';
import { connectAdmin, dropKeyspace, testKeyspace } from '../store/cassandra-test-keyspace.ts';
import { eventually } from '../support/eventually.ts';
import { heraldNodeFlags } from '../support/herald-process.ts';
import { serviceEndpoints } from '../support/service-endpoints.ts';
import { withDeadline } from '../support/with-deadline.ts';
import { exportDir, exportedInstallation, exportedUser, removeExportDirs, writeJsonLines, writeManyUsers } from './export-fixture.ts';

/**
 * `herald import` into the local Cassandra as an operator runs it, killed
 * outright in the middle of its bulk writes and run again: every row ends
 * stored once with its values claimed once, nothing half-written.
 */
const mainScript = resolve(import.meta.dirname, '../../src/main.ts');
const appId = 'cassclikill';
const keyspace = testKeyspace();
const users = 6_000;

afterAll(async () => {
  removeExportDirs();
  await dropKeyspace(keyspace);
}, 120_000);

interface ImportProcess {
  child: ChildProcess;
  output: () => string;
  exit: Promise<number | null>;
}

function startImport(dir: string, args: string[], nodeFlags: string[] = []): ImportProcess {
  const child = spawn(process.execPath, [...heraldNodeFlags(), ...nodeFlags, mainScript, 'import', '--app', appId, ...args], {
    cwd: dir,
    env: {
      ...process.env,
      HERALD_CONFIG: '',
      HERALD_DATA_DIR: join(dir, 'data'),
      HERALD_APP_ID: appId,
      HERALD_APP_KEY: 'cli-app-key-0123456789',
      HERALD_MASTER_KEY: 'cli-master-key-0123456789',
      HERALD_STORE: 'cassandra',
      HERALD_CASSANDRA_CONTACT_POINTS: serviceEndpoints.cassandra.contactPoints.join(','),
      HERALD_CASSANDRA_LOCAL_DC: serviceEndpoints.cassandra.localDataCenter,
      HERALD_CASSANDRA_KEYSPACE: keyspace,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exit = new Promise<number | null>((resolveExit) => child.once('exit', (code, signal) => resolveExit(code ?? (signal === null ? null : -1))));
  return { child, output: () => output, exit };
}

function finished(run: ImportProcess, what: string): Promise<number | null> {
  return withDeadline(run.exit, what, { timeoutMs: 240_000, seen: run.output });
}

function stateOf(dir: string): ImportState {
  return JSON.parse(readFileSync(join(dir, `herald-import-${appId}.state.json`), 'utf8')) as ImportState;
}

/** How many user documents the app has, and how many claims of each field, read behind the store's back. */
async function storedRows(): Promise<{ documents: number; claims: Record<string, number> }> {
  const admin = await connectAdmin();
  try {
    const documents = await admin.execute(`SELECT object_id FROM ${keyspace}.objects WHERE app_id = ? ALLOW FILTERING`, [appId], { prepare: true, fetchSize: 5_000 });
    const claims: Record<string, number> = {};
    let documentCount = 0;
    for await (const row of documents) if (row.get('object_id') !== null) documentCount += 1;
    const claimRows = await admin.execute(`SELECT field, object_id, value FROM ${keyspace}.unique_claims WHERE app_id = ? ALLOW FILTERING`, [appId], { prepare: true, fetchSize: 5_000 });
    for await (const row of claimRows) {
      const field = String(row.get('field'));
      // A claim names the user whose row holds the value: user <n> is objectId n in hex, with username bulk<n>.
      if (field === 'username' && String(row.get('value')) !== `bulk${Number.parseInt(String(row.get('object_id')), 16)}`) claims.mismatched = (claims.mismatched ?? 0) + 1;
      claims[field] = (claims[field] ?? 0) + 1;
    }
    return { documents: documentCount, claims };
  } finally {
    await admin.shutdown();
  }
}

describe('herald import on Cassandra, the command', () => {
  it('resumes after being killed in the middle of its bulk writes: every user stored and claimed once, and a third run finds every row present', async () => {
    const dir = exportDir();
    writeManyUsers(join(dir, '_User.0.jsonl'), users);
    const first = startImport(dir, ['.']);
    const file = join(dir, '_User.0.jsonl');
    await eventually('a checkpoint in the users file', () => stateOf(dir), (state) => (state.files[file]?.offset ?? 0) > 0, { timeoutMs: 180_000, detail: first.output });
    first.child.kill('SIGKILL');
    await finished(first, 'the killed import to exit');
    const killedAt = await storedRows();
    expect(killedAt.documents).toBeLessThan(users);

    const second = startImport(dir, ['.', '--json']);
    expect(await finished(second, 'the resumed import to exit'), second.output()).toBe(0);
    const resumed = JSON.parse(second.output()) as { tally: Record<string, { read: number; imported: number; present: number; rejected: number }> };
    // Each row counted once over both runs; the rows the killed run wrote after its checkpoint are found present.
    expect(resumed.tally._User?.read).toBe(users);
    expect(resumed.tally._User?.rejected).toBe(0);
    expect(await storedRows()).toEqual({ documents: users, claims: { username: users, email: users, sessionToken: users } });

    const third = startImport(dir, ['.', '--json']);
    expect(await finished(third, 'the third import to exit'), third.output()).toBe(0);
    expect((JSON.parse(third.output()) as typeof resumed).tally).toEqual({ _User: { read: users, imported: 0, present: users, rejected: 0 } });
  }, 600_000);

  it("runs in the heap Node gives itself in the chart's 512 MiB import Job (128 MB): the rows in flight fit", async () => {
    const dir = exportDir();
    const count = 16_000;
    // Users as large as the hosted service's: a mobile number, a third-party account and custom fields each.
    const rows = Array.from({ length: count }, (_, index) =>
      exportedUser(100_000 + index, {
        mobilePhoneNumber: `+86139${String(index).padStart(8, '0')}`,
        authData: { weixin: { openid: `wx-${String(index)}`, access_token: 'token', expires_in: 7200 } },
        nickname: `Player ${String(index)}`,
        bio: 'x'.repeat(200),
      }),
    );
    writeJsonLines(join(dir, '_User.0.jsonl'), '_User', rows);
    writeJsonLines(join(dir, '_Installation.0.jsonl'), '_Installation', Array.from({ length: count }, (_, index) => exportedInstallation(100_000 + index)));
    const run = startImport(dir, ['.', '--json'], ['--max-old-space-size=128']);
    expect(await finished(run, 'the import in a 128 MB heap to exit'), run.output()).toBe(0);
    const summary = JSON.parse(run.output()) as { tally: Record<string, { imported: number }> };
    expect(summary.tally._User?.imported).toBe(count);
    expect(summary.tally._Installation?.imported).toBe(count);
  }, 600_000);
});
