import { spawn, type ChildProcess } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { execForm, instructionsOf, keyValues, onlyInstruction, parseDockerfile, type DockerStage } from '../image/support/dockerfile.ts';
import { withDeadline } from '../support/with-deadline.ts';

const root = join(import.meta.dirname, '../..');
const packageJson = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { dependencies: Record<string, string> };
const lockfile = JSON.parse(readFileSync(join(root, 'package-lock.json'), 'utf8')) as { packages: Record<string, { dev?: boolean }> };
const runtime = parseDockerfile(readFileSync(join(root, 'Dockerfile'), 'utf8')).at(-1) as DockerStage;
/** The image's entrypoint after tini: `node <flags> /app/src/main.ts`. */
const imageEntrypoint = execForm(onlyInstruction(runtime, 'ENTRYPOINT').args).slice(2);
const imageEnv = Object.assign({}, ...instructionsOf(runtime, 'ENV').map(({ args }) => keyValues(args))) as Record<string, string>;
const healthcheckArgs = onlyInstruction(runtime, 'HEALTHCHECK').args;
const healthcheck = execForm(healthcheckArgs.slice(healthcheckArgs.indexOf('CMD ') + 'CMD '.length));

/** Runs a command to its end, answering its exit code and output, or failing after `timeoutMs`. */
async function run(command: string, args: string[], options: { cwd: string; env: NodeJS.ProcessEnv; timeoutMs: number }): Promise<{ code: number | null; output: string }> {
  const child = spawn(command, args, { cwd: options.cwd, env: options.env, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const code = await withDeadline(new Promise<number | null>((resolve) => child.once('exit', resolve)), `${command} ${args.join(' ')} to exit`, {
    timeoutMs: options.timeoutMs,
    seen: () => output.slice(-2000),
  }).finally(() => child.kill('SIGKILL'));
  return { code, output };
}

/** Files under `dir` with their sizes and times, to see whether anything wrote there. */
function snapshot(dir: string): Record<string, string> {
  const files: Record<string, string> = {};
  for (const file of readdirSync(dir, { recursive: true, encoding: 'utf8' })) {
    const stat = statSync(join(dir, file));
    files[file] = `${stat.size}@${stat.mtimeMs}`;
  }
  return files;
}

/**
 * Herald installed as the image installs it (`npm ci --omit=dev` from the
 * lockfile, then src and proto beside it), in a folder with no node_modules
 * above it, run with the image's entrypoint, environment and HEALTHCHECK.
 * A package that src/ loads but that is only a development dependency fails
 * here at start, as it would in the image. The install reads npm's cache
 * only (`--offline`): `npm ci` in the checkout has filled it.
 */
describe('Herald from a production install', () => {
  let base: string | undefined;
  let app: string;
  let home: string;
  let temp: string;
  let data: string;
  const running: ChildProcess[] = [];

  /** The image's entrypoint with its /app as the install folder here. */
  function entrypoint(): string[] {
    return imageEntrypoint.map((arg) => (arg.startsWith('/app/') ? join(app, arg.slice('/app/'.length)) : arg));
  }

  /** Only what the image sets, plus a PATH: no NODE_PATH, no npm variables of this run. */
  function env(extra: Record<string, string>): NodeJS.ProcessEnv {
    return { PATH: process.env.PATH, ...imageEnv, HOME: home, TMPDIR: temp, HERALD_DATA_DIR: data, ...extra };
  }

  beforeAll(async () => {
    const made = mkdtempSync(join(tmpdir(), 'herald-prod-'));
    base = made;
    for (let dir = made; dir !== dirname(dir); dir = dirname(dir)) {
      if (existsSync(join(dirname(dir), 'node_modules'))) throw new Error(`${dirname(dir)}/node_modules would let the install resolve packages it does not have`);
    }
    [app, home, temp, data] = ['app', 'home', 'tmp', 'data'].map((name) => join(made, name)) as [string, string, string, string];
    for (const dir of [app, home, temp, data]) mkdirSync(dir);
    for (const file of ['package.json', 'package-lock.json']) cpSync(join(root, file), join(app, file));
    const npmCli = process.env.npm_execpath;
    const [command, args] = npmCli === undefined ? ['npm', []] : [process.execPath, [npmCli]];
    const install = await run(command, [...args, 'ci', '--omit=dev', '--offline', '--no-audit', '--no-fund'], {
      cwd: app,
      env: { PATH: process.env.PATH, HOME: process.env.HOME, npm_config_cache: process.env.npm_config_cache },
      timeoutMs: 150_000,
    });
    if (install.code !== 0) throw new Error(`npm ci --omit=dev --offline failed (run npm ci in the checkout to fill npm's cache):\n${install.output}`);
    for (const dir of ['src', 'proto']) cpSync(join(root, dir), join(app, dir), { recursive: true });
  }, 180_000);

  afterAll(() => {
    for (const child of running.splice(0)) child.kill('SIGKILL');
    // The install is some 50 MB: do not leave one behind per run.
    if (base !== undefined) rmSync(base, { recursive: true, force: true });
  });

  it('holds every package the lockfile needs in production and none it needs only for development', () => {
    const installed = (path: string) => existsSync(join(app, path, 'package.json'));
    const locked = Object.entries(lockfile.packages).filter(([path]) => path !== '');
    expect(locked.filter(([path, entry]) => entry.dev !== true && !installed(path)).map(([path]) => path)).toEqual([]);
    expect(locked.filter(([path, entry]) => entry.dev === true && installed(path)).map(([path]) => path)).toEqual([]);
    expect(Object.keys(packageJson.dependencies).filter((name) => !installed(`node_modules/${name}`))).toEqual([]);
    // Node 24 comes from the image, not from the node package a checkout runs on.
    expect(installed('node_modules/node')).toBe(false);
  });

  it('prints the usage with --help', async () => {
    const [node, ...args] = entrypoint();
    expect(node).toBe('node');
    const help = await run(process.execPath, [...args, '--help'], { cwd: app, env: env({}), timeoutMs: 20_000 });
    expect(help.code, help.output).toBe(0);
    expect(help.output).toContain('Usage: herald');
  });

  it('serves the embedded default, passes the image HEALTHCHECK, writes only to its data directory and stops on SIGTERM', async () => {
    const appBefore = snapshot(app);
    const herald = spawn(process.execPath, entrypoint().slice(1), { cwd: app, env: env({ PORT: '0', HOST: '127.0.0.1', HERALD_GRPC_PORT: '0' }), stdio: ['ignore', 'pipe', 'pipe'] });
    running.push(herald);
    let output = '';
    herald.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    herald.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const exited = new Promise<number | null>((resolve) => herald.once('exit', resolve));
    const started = new Promise<void>((resolve, reject) => {
      herald.stdout.on('data', () => output.includes('"msg":"roles started"') && resolve());
      void exited.then((code) => reject(new Error(`Herald exited with ${code} before its roles started:\n${output}`)));
    });
    await withDeadline(started, 'Herald to start its roles', { timeoutMs: 30_000, seen: () => output.slice(-2000) });
    const port = Number(/"port":(\d+)[^\n]*"msg":"api listening"/.exec(output)?.[1]);
    expect(output, 'the gRPC API, loaded on demand, starts too').toMatch(/"msg":"grpc listening"/);

    expect((await fetch(`http://127.0.0.1:${port}/healthz`)).status).toBe(200);
    expect((await fetch(`http://127.0.0.1:${port}/readyz`)).status).toBe(200);
    // Registration hashes the password with argon2, the one native module.
    const headers = { 'X-SVC-Id': /X-SVC-Id:\s+(\S+)/.exec(output)?.[1] ?? '', 'X-SVC-Key': /X-SVC-Key:\s+(\S+)/.exec(output)?.[1] ?? '', 'Content-Type': 'application/json' };
    const registered = await fetch(`http://127.0.0.1:${port}/1.1/users`, { method: 'POST', headers, body: JSON.stringify({ username: 'image', password: 's3cret' }) });
    expect(registered.status, await registered.clone().text()).toBe(201);

    const [node, ...checkArgs] = healthcheck;
    expect(node).toBe('node');
    const check = await run(process.execPath, checkArgs, { cwd: app, env: env({ PORT: String(port) }), timeoutMs: 20_000 });
    expect(check.code, check.output).toBe(0);

    herald.kill('SIGTERM');
    expect(await withDeadline(exited, 'Herald to exit after SIGTERM', { timeoutMs: 20_000, seen: () => output.slice(-2000) })).toBe(0);
    expect(snapshot(app), 'nothing written beside the code').toEqual(appBefore);
    expect(readdirSync(temp), 'nothing written to TMPDIR').toEqual([]);
    expect(readdirSync(home), 'nothing written to HOME').toEqual([]);
    expect(readdirSync(data)).toEqual(expect.arrayContaining(['dev-app.json', 'herald.sqlite']));
  }, 60_000);
});
