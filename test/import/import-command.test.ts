import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { ImportState } from '../../src/import/import-state.ts';
import { eventually } from '../support/eventually.ts';
import { heraldNodeFlags } from '../support/herald-process.ts';
import { withDeadline } from '../support/with-deadline.ts';
import { exportDir, exportedInstallation, openTestStore, removeExportDirs, scannedInstallations, storedObjects, writeJsonLines, writeManyUsers } from './export-fixture.ts';

/**
 * `herald import` as an operator runs it: a process reading the config as
 * `herald serve` does, stopped by Ctrl-C or killed outright, and run again
 * to finish.
 */
const mainScript = resolve(import.meta.dirname, '../../src/main.ts');
const appId = 'cliapp';
// Enough that the users file takes a while after its first checkpoint (about 2 s here), so the test's signal lands mid-file.
const users = 30_000;
const usersShown = users.toLocaleString('en-US');
const slowTest = 120_000;

afterAll(removeExportDirs);

interface ImportProcess {
  child: ChildProcess;
  output: () => string;
  exit: Promise<number | null>;
}

/** `herald import --app cliapp <args>` in `dir`, on the embedded store in `dir/data`. */
function startImport(dir: string, args: string[]): ImportProcess {
  const child = spawn(process.execPath, [...heraldNodeFlags(), mainScript, 'import', '--app', appId, ...args], {
    cwd: dir,
    env: { ...process.env, HERALD_CONFIG: '', HERALD_DATA_DIR: join(dir, 'data'), HERALD_APP_ID: appId, HERALD_APP_KEY: 'cli-app-key-0123456789', HERALD_MASTER_KEY: 'cli-master-key-0123456789' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exit = new Promise<number | null>((resolveExit) => child.once('exit', (code, signal) => resolveExit(code ?? (signal === null ? null : -1))));
  return { child, output: () => output, exit };
}

function finished(run: ImportProcess, what: string): Promise<number | null> {
  return withDeadline(run.exit, what, { timeoutMs: 90_000, seen: run.output });
}

function stateOf(dir: string): ImportState {
  return JSON.parse(readFileSync(join(dir, `herald-import-${appId}.state.json`), 'utf8')) as ImportState;
}

/** Waits until the import has settled its first users and written a checkpoint. */
async function checkpointed(dir: string, run: ImportProcess): Promise<void> {
  const users = join(dir, '_User.0.jsonl');
  await eventually('a checkpoint in the users file', () => stateOf(dir), (state) => (state.files[users]?.offset ?? 0) > 0, {
    timeoutMs: 60_000,
    detail: run.output,
  });
}

async function storedCounts(dir: string): Promise<{ users: number; installations: number }> {
  // The store as the command created it: with Herald's default shard count.
  const store = openTestStore(join(dir, 'data'), 64);
  try {
    return { users: (await storedObjects(store, appId, '_User')).size, installations: (await scannedInstallations(store, appId)).size };
  } finally {
    await store.close();
  }
}

function exportFiles(dir: string): string[] {
  return [
    writeManyUsers(join(dir, '_User.0.jsonl'), users),
    writeJsonLines(
      join(dir, '_Installation.0.jsonl'),
      '_Installation',
      Array.from({ length: 300 }, (_, index) => exportedInstallation(index + 1)),
    ),
  ];
}

describe('herald import, the command', () => {
  it(
    'stops cleanly at a row boundary on Ctrl-C, and imports every row once when run again',
    async () => {
      const dir = exportDir();
      exportFiles(dir);
      const first = startImport(dir, ['.']);
      await checkpointed(dir, first);
      // Frozen while the signal is sent, so it cannot finish the file first.
      first.child.kill('SIGSTOP');
      first.child.kill('SIGINT');
      first.child.kill('SIGCONT');
      expect(await finished(first, 'the interrupted import to exit'), first.output()).toBe(130);
      expect(first.output()).toContain('Import interrupted; every row before the checkpoint is settled.');
      expect(first.output()).toMatch(/run the same command again to go on from there/);
      const checkpoint = stateOf(dir).files[join(dir, '_User.0.jsonl')];
      expect(checkpoint?.done).toBe(false);
      expect(checkpoint?.offset).toBeGreaterThan(0);

      const second = startImport(dir, ['.']);
      expect(await finished(second, 'the resumed import to exit'), second.output()).toBe(0);
      expect(second.output()).toContain('Import finished.');
      // The summary counts both runs: each row read once.
      expect(second.output()).toMatch(new RegExp(`_User\\s+${usersShown}\\s+[\\d,]+\\s+[\\d,]+\\s+0\\n`));
      expect(second.output()).toMatch(/_Installation\s+300\s+/);
      expect(existsSync(join(dir, `herald-import-${appId}.state.json`))).toBe(false);
      expect(await storedCounts(dir)).toEqual({ users, installations: 300 });
    },
    slowTest,
  );

  it(
    'resumes from its last checkpoint after being killed outright',
    async () => {
      const dir = exportDir();
      exportFiles(dir);
      const first = startImport(dir, ['.']);
      await checkpointed(dir, first);
      first.child.kill('SIGKILL');
      await finished(first, 'the killed import to exit');
      const checkpoint = stateOf(dir).files[join(dir, '_User.0.jsonl')];
      expect(checkpoint?.offset).toBeGreaterThan(0);

      const second = startImport(dir, ['.']);
      expect(await finished(second, 'the resumed import to exit'), second.output()).toBe(0);
      expect(second.output()).toMatch(new RegExp(`_User\\s+${usersShown}\\s+`));
      expect(await storedCounts(dir)).toEqual({ users, installations: 300 });

      // And a third run finds everything in place.
      const third = startImport(dir, ['.', '--json']);
      expect(await finished(third, 'the third import to exit'), third.output()).toBe(0);
      const summary = JSON.parse(third.output()) as { tally: Record<string, { imported: number; present: number }> };
      expect(summary.tally).toEqual({
        _Installation: { read: 300, imported: 0, present: 300, rejected: 0 },
        _User: { read: users, imported: 0, present: users, rejected: 0 },
      });
    },
    slowTest,
  );

  it('answers bad arguments with the usage and status 2, before touching anything', async () => {
    const dir = exportDir();
    const missingApp = spawn(process.execPath, [mainScript, 'import', 'nothing.jsonl'], { cwd: dir, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    missingApp.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const code = await withDeadline(new Promise((resolveExit) => missingApp.once('exit', resolveExit)), 'the command to exit');
    expect(code).toBe(2);
    expect(output).toContain('herald import: --app <id> is required');
    expect(output).toContain('Usage: herald import --app <id>');

    writeJsonLines(join(dir, '_User.0.jsonl'), '_User', []);
    const unknownApp = startImport(dir, ['--app', 'someone-else', dir]);
    expect(await finished(unknownApp, 'the command to exit')).toBe(2);
    expect(unknownApp.output()).toContain('app someone-else is not configured here');
    expect(existsSync(join(dir, 'data', 'herald.sqlite'))).toBe(false);
  });

  it('checks a file set on a dry run without creating the store, and says what it would import', async () => {
    const dir = exportDir();
    writeJsonLines(join(dir, '_Installation.0.jsonl'), '_Installation', [exportedInstallation(1), exportedInstallation(2, { deviceType: 'wp' })]);
    const dry = startImport(dir, ['--dry-run', '.']);
    expect(await finished(dry, 'the dry run to exit'), dry.output()).toBe(3);
    expect(dry.output()).toContain('Dry run: nothing was written.');
    expect(dry.output()).toMatch(/_Installation\s+2\s+1\s+0\s+1/);
    expect(dry.output()).toContain('_Installation.0.jsonl:3');
    expect(existsSync(join(dir, 'data', 'herald.sqlite'))).toBe(false);
    expect(existsSync(join(dir, `herald-import-${appId}.rejects.jsonl`))).toBe(false);
  });
});
