import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';

const mainScript = resolve(import.meta.dirname, '../../src/main.ts');
const running: ChildProcess[] = [];

afterEach(() => {
  for (const child of running.splice(0)) child.kill('SIGKILL');
});

interface Started {
  child: ChildProcess;
  port: number;
  stdout: () => string;
}

/** Runs `node src/main.ts` as `npm start` does and waits for the api to listen. */
function start(env: Record<string, string>): Promise<Started> {
  const child = spawn(process.execPath, [mainScript], { env: { ...process.env, PORT: '0', HOST: '127.0.0.1', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  running.push(child);
  let out = '';
  let err = '';
  return new Promise((resolvePromise, reject) => {
    child.stdout?.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const match = /"port":(\d+)[^\n]*"msg":"api listening"/.exec(out);
      if (match) resolvePromise({ child, port: Number(match[1]), stdout: () => out });
    });
    child.stderr?.on('data', (chunk: Buffer) => (err += chunk.toString()));
    child.on('exit', (code) => reject(new Error(`exited with ${code}: ${err}${out}`)));
  });
}

function stop(child: ChildProcess): Promise<number | null> {
  return new Promise((resolvePromise) => {
    child.once('exit', (code) => resolvePromise(code));
    child.kill('SIGTERM');
  });
}

describe('the service process', () => {
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
    expect(await stop(first.child)).toBe(0);

    const second = await start({ HERALD_DATA_DIR: dataDir });
    expect(second.stdout()).toContain(id);
    const login = await fetch(`http://127.0.0.1:${second.port}/1.1/login`, { method: 'POST', headers, body: JSON.stringify({ username: 'persisted', password: 'pw' }) });
    expect(login.status).toBe(200);
    const ready = await fetch(`http://127.0.0.1:${second.port}/readyz`);
    expect(await ready.json()).toEqual({ status: 'ok', checks: { store: { status: 'ok' }, coordination: { status: 'ok' } } });
    expect(await stop(second.child)).toBe(0);
  });

  it('refuses to start on a bad config, naming the key', async () => {
    const failed = start({ HERALD_DATA_DIR: mkdtempSync(join(tmpdir(), 'herald-proc-')), PORT: 'not-a-port' });
    await expect(failed).rejects.toThrow(/exited with 1: .*PORT/);
  });
});
