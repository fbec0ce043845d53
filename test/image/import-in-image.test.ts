import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { exportedInstallation, exportedUser, writeJsonLines } from '../import/export-fixture.ts';
import { withDeadline } from '../support/with-deadline.ts';
import { repoRoot } from './support/compose-file.ts';
import { emulateDockerRun, parseDockerRun, type EmulatedRun } from './support/docker-run.ts';

const work = mkdtempSync(join(tmpdir(), 'herald-image-import-'));
const volumes = join(work, 'volumes');
const keys = ['-e', 'HERALD_APP_ID=myapp', '-e', 'HERALD_APP_KEY=myapp-app-key-0001', '-e', 'HERALD_MASTER_KEY=myapp-master-key-0001'];

afterAll(() => rmSync(work, { recursive: true, force: true }));

/** Runs an emulated `docker run` to its end. */
async function runToEnd(run: EmulatedRun): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const [, ...args] = run.argv;
  const child = spawn(process.execPath, args, { cwd: run.cwd, env: { PATH: process.env.PATH, ...run.env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const code = await withDeadline(new Promise<number | null>((resolve) => child.once('exit', resolve)), 'the container command to exit', { timeoutMs: 60_000, seen: () => stdout + stderr });
  return { code, stdout, stderr };
}

/**
 * `herald import` as the image runs it, without an engine: the Dockerfile's
 * entrypoint, ENV and WORKDIR, the export folder bind-mounted read-only and
 * the data volume (test/image/support/docker-run.ts plays the mounts out as
 * folders). Then Herald from the same image and volume serves the imported
 * users with their old passwords.
 */
describe('herald import in the container image', () => {
  const exportDir = join(work, 'export');
  mkdirSync(exportDir);
  writeJsonLines(join(exportDir, '_User.0.jsonl'), '_User', [exportedUser(1), exportedUser(2), exportedUser(3, { email: 'not an email' })]);
  writeJsonLines(join(exportDir, '_Installation.0.jsonl'), '_Installation', [exportedInstallation(2), exportedInstallation(3)]);
  const importCommand = ['--rm', '-v', 'herald-data:/data', '-v', `${exportDir}:/export:ro`, ...keys, 'herald', 'import', '--app', 'myapp', '/export'];

  it('imports a mounted export into the data volume, where its reject file goes, and a second run finds every row present', async () => {
    const first = await runToEnd(emulateDockerRun(parseDockerRun(importCommand), { cwd: work, volumesDir: volumes }));
    expect(first.code, first.stderr).toBe(3);
    expect(first.stdout).toMatch(/_User\s+3\s+2\s+0\s+1/);
    expect(first.stdout).toMatch(/_Installation\s+2\s+2\s+0\s+0/);
    const data = join(volumes, 'herald-data');
    expect(readdirSync(data)).toEqual(expect.arrayContaining(['herald.sqlite', 'herald-import-myapp.rejects.jsonl']));
    const rejects = readFileSync(join(data, 'herald-import-myapp.rejects.jsonl'), 'utf8').trim().split('\n');
    expect(rejects.map((line) => (JSON.parse(line) as { code: number; file: string }).code)).toEqual([125]);
    expect((statSync(join(data, 'herald-import-myapp.rejects.jsonl')).mode & 0o777).toString(8)).toBe('600');
    // Nothing lands beside the code, which is read-only to the image's user.
    expect(readdirSync(repoRoot).filter((name) => name.startsWith('herald-import-'))).toEqual([]);

    const second = await runToEnd(emulateDockerRun(parseDockerRun(importCommand), { cwd: work, volumesDir: volumes }));
    expect(second.code, second.stderr).toBe(3);
    expect(second.stdout).toMatch(/_User\s+3\s+0\s+2\s+1/);
  }, 60_000);

  it('checks a dry run and answers --help from the image', async () => {
    const dryRun = await runToEnd(emulateDockerRun(parseDockerRun(['--rm', '-v', `${exportDir}:/export:ro`, ...keys, 'herald', 'import', '--app', 'myapp', '--dry-run', '/export']), { cwd: work, volumesDir: join(work, 'fresh') }));
    expect(dryRun.code, dryRun.stderr).toBe(3);
    expect(dryRun.stdout).toMatch(/_User\s+3\s+2\s+0\s+1/);
    expect(existsSync(join(work, 'fresh', 'anonymous', 'data', 'herald.sqlite')), 'a dry run writes no store').toBe(false);
    const help = await runToEnd(emulateDockerRun(parseDockerRun(['--rm', 'herald', 'import', '--help']), { cwd: work, volumesDir: join(work, 'fresh') }));
    expect(help.code).toBe(0);
    expect(help.stdout).toContain('Usage: herald import --app <id>');
  }, 60_000);

  it('serves the imported users from the same volume: a login with the exported password', async () => {
    const run = emulateDockerRun(parseDockerRun(['--rm', '-v', 'herald-data:/data', ...keys, '-e', 'PORT=0', '-e', 'HOST=127.0.0.1', '-e', 'HERALD_GRPC_PORT=off', 'herald']), { cwd: work, volumesDir: volumes });
    const [, ...args] = run.argv;
    const herald = spawn(process.execPath, args, { cwd: run.cwd, env: { PATH: process.env.PATH, ...run.env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    herald.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    herald.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    try {
      const started = new Promise<number>((resolve, reject) => {
        herald.stdout.on('data', () => {
          const port = /"port":(\d+)[^\n]*"msg":"api listening"/.exec(output)?.[1];
          if (port !== undefined && output.includes('"msg":"roles started"')) resolve(Number(port));
        });
        herald.once('exit', (code) => reject(new Error(`Herald exited with ${code}:\n${output}`)));
      });
      const port = await withDeadline(started, 'Herald to start', { timeoutMs: 30_000, seen: () => output });
      const login = await fetch(`http://127.0.0.1:${port}/1.1/login`, {
        method: 'POST',
        headers: { 'X-SVC-Id': 'myapp', 'X-SVC-Key': 'myapp-app-key-0001', 'Content-Type': 'application/json' },
        body: JSON.stringify({ username: 'user1', password: 'secret-1' }),
      });
      expect(login.status).toBe(200);
      expect(await login.json()).toMatchObject({ objectId: exportedUser(1).objectId, sessionToken: exportedUser(1).sessionToken });
    } finally {
      herald.kill('SIGTERM');
    }
  }, 60_000);
});

describe('docker run as the documents write it', () => {
  it('reads options, the image and Herald\'s arguments, and refuses an option it does not know', () => {
    const run = parseDockerRun(['-d', '--name', 'herald-api', '-p', '3000:3000', '-e', 'HERALD_APP_ID=shop', '-e', 'SECRET', '-v', 'herald-data:/data', 'herald', '--role', 'api'], { SECRET: 's' });
    expect(run).toMatchObject({ image: 'herald', args: ['--role', 'api'], detached: true, name: 'herald-api', env: { HERALD_APP_ID: 'shop', SECRET: 's' }, ports: ['3000:3000'] });
    expect(() => parseDockerRun(['--privileged', 'herald'])).toThrow('an option this check does not know: --privileged');
  });
});
