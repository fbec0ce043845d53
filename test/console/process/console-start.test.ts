import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { compileConfig } from '../../../src/config/load-config.ts';
import { verifyPassword } from '../../../src/accounts/passwords.ts';
import { eventually } from '../../support/eventually.ts';
import { heraldNodeFlags, startHeraldProcess, type HeraldProcess } from '../../support/herald-process.ts';
import { ConsoleClient } from '../support/console-client.ts';

const mainScript = resolve(import.meta.dirname, '../../../src/main.ts');
const running: HeraldProcess[] = [];

afterEach(() => {
  for (const herald of running.splice(0)) herald.kill();
});

/** `herald console-user <args>` with `stdin` piped in; answers the exit code and output. */
function consoleUser(args: string[], stdin: string): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, [...heraldNodeFlags(), mainScript, 'console-user', ...args], { stdio: ['pipe', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  child.stdin.end(stdin);
  return new Promise((done) => child.once('exit', (code) => done({ code, stdout, stderr })));
}

describe('herald console-user', () => {
  it('prints a config snippet whose hash is the piped password, and that the config accepts', async () => {
    const { code, stdout } = await consoleUser(['grace', '--role', 'operator', '--apps', 'shop,game'], 'a-long-console-password\n');
    expect(code).toBe(0);
    expect(stdout).not.toContain('a-long-console-password');
    const hash = /passwordHash: "([^"]+)"/.exec(stdout)?.[1];
    expect(hash).toMatch(/^\$argon2id\$/);
    expect(await verifyPassword(hash, 'a-long-console-password')).toBe(true);
    expect(stdout).toContain('role: operator\n      apps: ["shop", "game"]');
    const apps = ['shop', 'game'].map((id) => ({ id, key: `${id}-app-key`, masterKey: `${id}-master-key` }));
    const config = compileConfig({ apps, console: { accounts: [{ username: 'grace', passwordHash: hash, role: 'operator', apps: ['shop', 'game'] }] } });
    expect(config.console.accounts[0]?.username).toBe('grace');
  });

  it('prints the account as JSON for the chart\'s accounts file, or the hash alone for its Secret entry', async () => {
    const json = await consoleUser(['ada', '--role', 'admin', '--apps', 'shop', '--format', 'json'], 'another-long-password\n');
    expect(json.code).toBe(0);
    const account = JSON.parse(json.stdout) as { username: string; passwordHash: string; role: string; apps: string[] };
    expect(account).toMatchObject({ username: 'ada', role: 'admin', apps: ['shop'] });
    expect(await verifyPassword(account.passwordHash, 'another-long-password')).toBe(true);
    // The list the chart's console.accountsKey entry holds is the config's list of accounts.
    const config = compileConfig({ apps: [{ id: 'shop', key: 'shop-app-key', masterKey: 'shop-master-key' }], console: { accounts: [account] } });
    expect(config.console.accounts[0]).toMatchObject({ username: 'ada', role: 'admin' });
    const hash = await consoleUser(['ada', '--format', 'hash'], 'another-long-password\n');
    expect(hash.code).toBe(0);
    expect(hash.stdout).toMatch(/^\$argon2id\$[^\s]+\n$/);
    expect(await verifyPassword(hash.stdout.trim(), 'another-long-password')).toBe(true);
    const unknown = await consoleUser(['ada', '--format', 'xml'], 'another-long-password\n');
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('--format is one of yaml, json, hash');
  });

  it('refuses a short password, an unknown role, and a password given on the command line', async () => {
    expect((await consoleUser(['grace'], 'short\n')).stderr).toContain('at least 12 characters');
    expect((await consoleUser(['grace', '--role', 'root'], 'a-long-console-password\n')).code).toBe(2);
    const onArgv = await consoleUser(['grace', '--password', 'a-long-console-password'], '');
    expect(onArgv.code).toBe(2);
    expect(onArgv.stderr).toContain("Unknown option '--password'");
  });
});

describe('npm start with the development keys', () => {
  it('serves the console, prints where it is and how to sign in, and keeps the account across a restart', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'herald-console-'));
    const first = await startHeraldProcess({ HERALD_DATA_DIR: dataDir });
    running.push(first);
    const printed = await eventually('the console lines', () => Promise.resolve(first.stdout()), (out) => /sign in as dev with password \S+/.test(out));
    const url = /Console: (\S+)/.exec(printed)?.[1];
    const password = /sign in as dev with password (\S+)/.exec(printed)?.[1] as string;
    expect(url).toBe(`http://127.0.0.1:${first.port}/console`);
    expect(statSync(join(dataDir, 'dev-console.json')).mode & 0o777).toBe(0o600);
    const client = new ConsoleClient(url as string, `http://127.0.0.1:${first.port}`);
    expect((await client.signIn({ username: 'dev', password })).status).toBe(303);
    expect(await first.stop()).toBe(0);
    running.splice(0);

    const second = await startHeraldProcess({ HERALD_DATA_DIR: dataDir });
    running.push(second);
    await eventually('the console lines', () => Promise.resolve(second.stdout()), (out) => out.includes(`sign in as dev with password ${password}`));
  });

  it('makes no development console account for a configured deployment', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'herald-console-'));
    const configFile = join(dataDir, 'herald.yaml');
    writeFileSync(configFile, 'apps:\n  - id: shop\n    key: shop-app-key-1\n    masterKey: shop-master-key-1\n');
    const herald = await startHeraldProcess({ HERALD_DATA_DIR: dataDir, HERALD_CONFIG: configFile });
    running.push(herald);
    const out = await eventually('the started line', () => Promise.resolve(herald.stdout()), (text) => text.includes('"msg":"herald started"'));
    expect(out).toContain('no console account is configured: make one with herald console-user');
    expect(out).not.toContain('sign in as');
    expect(() => readFileSync(join(dataDir, 'dev-console.json'))).toThrow(/ENOENT/);
  });
});
