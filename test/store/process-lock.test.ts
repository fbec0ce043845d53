import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../src/config/load-config.ts';
import { ProcessLock } from '../../src/store/sqlite/process-lock.ts';
import { eventually } from '../support/eventually.ts';

function lockFile(): string {
  return join(mkdtempSync(join(tmpdir(), 'herald-lock-')), 'herald.pid');
}

/** A live process that is not this one, and its pid. */
function otherProcess(): Promise<{ pid: number; kill(): void }> {
  const child = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { stdio: 'ignore' });
  return new Promise((resolve, reject) => {
    child.once('spawn', () => resolve({ pid: child.pid as number, kill: () => child.kill('SIGKILL') }));
    child.once('error', reject);
  });
}

describe('the embedded store’s process lock', () => {
  it('writes this process’s pid and removes the file on release', () => {
    const file = lockFile();
    const lock = ProcessLock.acquire(file);
    expect(readFileSync(file, 'utf8').trim()).toBe(String(process.pid));
    lock.release();
    lock.release();
    expect(existsSync(file)).toBe(false);
  });

  it('refuses while another live process holds it, naming that process', async () => {
    const file = lockFile();
    const other = await otherProcess();
    try {
      writeFileSync(file, `${other.pid}\n`);
      expect(() => ProcessLock.acquire(file)).toThrow(ConfigError);
      expect(() => ProcessLock.acquire(file)).toThrow(`Another Herald process (pid ${other.pid}) uses the embedded store`);
      expect(readFileSync(file, 'utf8').trim()).toBe(String(other.pid));
    } finally {
      other.kill();
    }
  });

  it('takes over a file left by a process that died', async () => {
    const file = lockFile();
    const other = await otherProcess();
    other.kill();
    writeFileSync(file, `${other.pid}\n`);
    await eventually(`the killed child's pid ${other.pid} to no longer answer`, () => isAlive(other.pid), (alive) => !alive);
    const lock = ProcessLock.acquire(file);
    expect(readFileSync(file, 'utf8').trim()).toBe(String(process.pid));
    lock.release();
  });

  it('does not remove a file another process wrote after this one lost it', () => {
    const file = lockFile();
    const lock = ProcessLock.acquire(file);
    writeFileSync(file, '1\n');
    lock.release();
    expect(readFileSync(file, 'utf8').trim()).toBe('1');
  });
});

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}
