import { spawn, spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { exportedInstallation, exportedUser, writeJsonLines } from '../../import/export-fixture.ts';

/** A command a shell block ran, as the shim recorded it. */
export interface Invocation {
  name: string;
  args: string[];
  env: Record<string, string>;
  cwd: string;
  status: number;
}

export interface BlockRun {
  status: number | null;
  stdout: string;
  stderr: string;
  invocations: Invocation[];
}

/** Commands that stand in for themselves: recorded, checked afterwards, run for real where they can be. */
export const shimmedCommands = ['npm', 'npx', 'docker', 'kind', 'minikube', 'kubectl', 'helm', 'grpcurl', 'curl', 'openssl', 'git', 'jq'];
/** Of those, the ones that run for real while the block runs (their output feeds the block). */
const passthrough = ['curl', 'openssl', 'git', 'jq'];
/** Plain tools a block may use as they are. */
const plainTools = ['grep', 'head', 'tail', 'cat', 'sed', 'awk', 'sort', 'tr', 'env', 'wc', 'cut', 'sleep', 'mkdir', 'cp', 'ls', 'tee', 'sha256sum', 'date'];

const repoRoot = join(import.meta.dirname, '../../..');
/** Top-level entries of the checkout a block sees in its folder; the rest is its own. */
const hiddenEntries = new Set(['data', 'export', '.git', '.services', '.tools', 'test-artifacts']);

/**
 * A folder that looks like the checkout to the documents' commands (its
 * files linked, `./charts/herald` and `npm run` work), with what a reader
 * would have beside them: an export of the hosted service in `export/`,
 * APNs and FCM credential files, a data folder of its own. Shell blocks run
 * here with a PATH that holds only the shims and a few plain tools, so a
 * command the test does not know fails the block.
 */
export class ExampleWorkspace {
  readonly dir: string;
  readonly #bin: string;
  readonly #env: Record<string, string>;

  constructor(env: Record<string, string>) {
    this.dir = mkdtempSync(join(tmpdir(), 'herald-doc-examples-'));
    for (const entry of readdirSync(repoRoot)) if (!hiddenEntries.has(entry)) symlinkSync(join(repoRoot, entry), join(this.dir, entry));
    mkdirSync(join(this.dir, 'export'));
    writeJsonLines(join(this.dir, 'export', '_User.0.jsonl'), '_User', [exportedUser(1), exportedUser(2)]);
    writeJsonLines(join(this.dir, 'export', '_Installation.0.jsonl'), '_Installation', [exportedInstallation(2), exportedInstallation(3)]);
    writeFileSync(join(this.dir, 'AuthKey_ABC1234567.p8'), '-----BEGIN PRIVATE KEY-----\n…\n-----END PRIVATE KEY-----\n');
    writeFileSync(join(this.dir, 'firebase-service-account.json'), '{"type": "service_account"}\n');
    mkdirSync(join(this.dir, 'home'));
    this.#bin = join(this.dir, '.bin');
    mkdirSync(this.#bin);
    for (const name of shimmedCommands) {
      const wrapper = join(this.#bin, name);
      writeFileSync(wrapper, `#!/bin/sh\nexec "${process.execPath}" "${join(import.meta.dirname, 'command-shim.ts')}" ${name} "$@"\n`);
      chmodSync(wrapper, 0o755);
    }
    for (const tool of plainTools) {
      const found = spawnSync('sh', ['-c', `command -v ${tool}`], { encoding: 'utf8' }).stdout.trim();
      if (found !== '' && !existsSync(join(this.#bin, tool))) symlinkSync(found, join(this.#bin, tool));
    }
    this.#env = { ...env, HOME: join(this.dir, 'home'), HERALD_DATA_DIR: join(this.dir, 'data') };
  }

  /** The variables every block gets. */
  environment(): Record<string, string> {
    return { ...this.#env };
  }

  /** Runs a shell block with bash in the workspace; the shims record what it called. */
  async runShell(text: string, name: string, timeoutMs = 60_000): Promise<BlockRun> {
    const script = join(this.dir, `${name}.sh`);
    const log = join(this.dir, `${name}.calls.jsonl`);
    writeFileSync(script, text);
    writeFileSync(log, '');
    const env = { ...this.#env, PATH: this.#bin, EXAMPLE_LOG: log, EXAMPLE_PASSTHROUGH: passthrough.join(','), EXAMPLE_REAL_PATH: process.env.PATH ?? '' };
    const run = await this.#run('/bin/bash', ['--noprofile', '--norc', script], env, timeoutMs);
    const invocations = readFileSync(log, 'utf8')
      .split('\n')
      .filter((line) => line !== '')
      .map((line) => JSON.parse(line) as Invocation);
    return { ...run, invocations };
  }

  /** Runs a JavaScript or TypeScript block with node, as a file in the workspace (its node_modules and proto/ beside it). */
  async runNode(text: string, name: string, extension: string, timeoutMs = 60_000): Promise<BlockRun> {
    const script = join(this.dir, `${name}.${extension}`);
    writeFileSync(script, text);
    const run = await this.#run(process.execPath, [script], { ...this.#env, PATH: process.env.PATH ?? '' }, timeoutMs);
    return { ...run, invocations: [] };
  }

  #run(command: string, args: string[], env: Record<string, string>, timeoutMs: number): Promise<Omit<BlockRun, 'invocations'>> {
    return new Promise((resolve) => {
      const child = spawn(command, args, { cwd: this.dir, env, stdio: ['ignore', 'pipe', 'pipe'] });
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
      child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
      const timer = setTimeout(() => {
        stderr += `\n(killed after ${timeoutMs} ms)`;
        child.kill('SIGKILL');
      }, timeoutMs);
      child.once('close', (status) => {
        clearTimeout(timer);
        resolve({ status, stdout, stderr });
      });
    });
  }

  remove(): void {
    rmSync(this.dir, { recursive: true, force: true });
  }
}
