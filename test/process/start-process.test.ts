import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { heraldNodeFlags, startHeraldProcess, type HeraldProcess } from '../support/herald-process.ts';

const running: HeraldProcess[] = [];

afterEach(() => {
  for (const herald of running.splice(0)) herald.kill();
});

async function start(env: Record<string, string>, extraNodeFlags: string[] = []): Promise<HeraldProcess> {
  const herald = await startHeraldProcess(env, [], extraNodeFlags);
  running.push(herald);
  return herald;
}

describe('the service process', () => {
  it('runs with V8 set for a sender (8 MB semispaces, an old generation growing 3×), from npm start and from the container image alike', async () => {
    const flags = heraldNodeFlags();
    expect(flags).toEqual(expect.arrayContaining(['--max-semi-space-size=8', '--heap-growing-percent=200']));
    const entrypoint = /^ENTRYPOINT (\[.*\])$/m.exec(readFileSync(join(import.meta.dirname, '../../Dockerfile'), 'utf8'))?.[1];
    expect(JSON.parse(entrypoint ?? '[]')).toEqual(['tini', '--', 'node', ...flags, '/app/src/main.ts']);
    const herald = await start({ HERALD_DATA_DIR: mkdtempSync(join(tmpdir(), 'herald-proc-')) });
    const args = readFileSync(`/proc/${herald.child.pid}/cmdline`, 'utf8').split('\0');
    expect(args).toEqual(expect.arrayContaining(flags));
  });

  it('puts a launcher\'s extra Node flags after the package\'s, where V8 lets the later one win (NODE_OPTIONS would lose)', async () => {
    const herald = await start({ HERALD_DATA_DIR: mkdtempSync(join(tmpdir(), 'herald-proc-')) }, ['--max-semi-space-size=32']);
    const args = readFileSync(`/proc/${herald.child.pid}/cmdline`, 'utf8').split('\0');
    const packageFlag = args.indexOf('--max-semi-space-size=8');
    const extraFlag = args.indexOf('--max-semi-space-size=32');
    expect(packageFlag).toBeGreaterThan(0);
    expect(extraFlag).toBeGreaterThan(packageFlag);
    expect(args.findIndex((arg) => arg.endsWith('src/main.ts'))).toBeGreaterThan(extraFlag);
  });

  it('starts with development keys, prints them, keeps data across a restart and stops cleanly on SIGTERM', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'herald-proc-'));
    const first = await start({ HERALD_DATA_DIR: dataDir });
    const id = /X-SVC-Id:\s+(\S+)/.exec(first.stdout())?.[1];
    const key = /X-SVC-Key:\s+(\S+)/.exec(first.stdout())?.[1];
    expect(id).toMatch(/^dev-/);
    expect(key).toBeTruthy();
    const headers = { 'X-SVC-Id': id as string, 'X-SVC-Key': key as string, 'Content-Type': 'application/json' };
    const reg = await fetch(`http://127.0.0.1:${first.port}/1.1/users`, { method: 'POST', headers, body: JSON.stringify({ username: 'persisted', password: 'pw' }) });
    expect(reg.status).toBe(201);
    expect(await first.stop()).toBe(0);

    const second = await start({ HERALD_DATA_DIR: dataDir });
    expect(second.stdout()).toContain(id);
    const login = await fetch(`http://127.0.0.1:${second.port}/1.1/login`, { method: 'POST', headers, body: JSON.stringify({ username: 'persisted', password: 'pw' }) });
    expect(login.status).toBe(200);
    const ready = await fetch(`http://127.0.0.1:${second.port}/readyz`);
    expect(await ready.json()).toMatchObject({ status: 'ok', checks: { store: { status: 'ok' }, coordination: { status: 'ok' }, bus: { status: 'ok' } }, roles: { api: { state: 'running' }, sender: { state: 'running' }, fanout: { state: 'running' }, scheduler: { state: 'running' } } });
    expect(await second.stop()).toBe(0);
  });

  it('refuses to start on a bad config, naming the key', async () => {
    const failed = start({ HERALD_DATA_DIR: mkdtempSync(join(tmpdir(), 'herald-proc-')), PORT: 'not-a-port' });
    await expect(failed).rejects.toThrow(/exited with 1: .*PORT/);
  });
});
