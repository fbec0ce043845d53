import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';

const mainScript = resolve(import.meta.dirname, '../../src/main.ts');

const packageConfig = (JSON.parse(readFileSync(resolve(import.meta.dirname, '../../package.json'), 'utf8')) as { config?: { nodeFlags?: string } }).config;
/** Read once: every spawned Herald gets the same flags. */
const nodeFlags = (packageConfig?.nodeFlags ?? '').split(' ').filter((flag) => flag !== '');

/** The Node flags `npm start` runs Herald with (package.json `config.nodeFlags`). */
export function heraldNodeFlags(): string[] {
  return [...nodeFlags];
}

/** A Herald process started as `npm start` does. */
export interface HeraldProcess {
  child: ChildProcess;
  /** The api role's port; 0 for a process that runs no api role. */
  port: number;
  /** The internal port (metrics, health) when HERALD_INTERNAL_PORT is set; else 0. */
  internalPort: number;
  /** The api role's gRPC port (a free one unless HERALD_GRPC_PORT says otherwise); 0 when it serves none. */
  grpcPort: number;
  stdout(): string;
  /** SIGTERM, then answers the exit code. */
  stop(): Promise<number | null>;
  /** SIGKILL, for a crash or a cleanup that must not wait. */
  kill(): void;
}

/**
 * Runs `node <config.nodeFlags> [extraNodeFlags] src/main.ts [args]` with `env` added to
 * this process's environment, and waits until every role has started (its
 * api, if it runs one, listens on a port the kernel picked). Rejects with the
 * process's output when it exits first. `extraNodeFlags` come after the
 * package's flags, so a V8 flag there overrides the package's (in
 * NODE_OPTIONS it would not: the command line wins).
 */
export function startHeraldProcess(env: Record<string, string>, args: string[] = [], extraNodeFlags: readonly string[] = []): Promise<HeraldProcess> {
  const child = spawn(process.execPath, [...heraldNodeFlags(), ...extraNodeFlags, mainScript, ...args], {
    env: { ...process.env, PORT: '0', HERALD_GRPC_PORT: '0', HOST: '127.0.0.1', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  const exited = new Promise<number | null>((resolveExit) => child.once('exit', (code) => resolveExit(code)));
  return new Promise((resolvePromise, reject) => {
    child.stdout?.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      if (!out.includes('"msg":"roles started"')) return;
      const match = /"port":(\d+)[^\n]*"msg":"api listening"/.exec(out);
      const internal = /"port":(\d+)[^\n]*"msg":"internal port listening/.exec(out);
      const grpc = /"port":(\d+)[^\n]*"msg":"grpc listening"/.exec(out);
      resolvePromise({
        child,
        port: match === null ? 0 : Number(match[1]),
        internalPort: internal === null ? 0 : Number(internal[1]),
        grpcPort: grpc === null ? 0 : Number(grpc[1]),
        stdout: () => out,
        stop: () => {
          child.kill('SIGTERM');
          return exited;
        },
        kill: () => child.kill('SIGKILL'),
      });
    });
    child.stderr?.on('data', (chunk: Buffer) => (err += chunk.toString()));
    void exited.then((code) => reject(new Error(`exited with ${code}: ${err}${out}`)));
  });
}

/** Runs `node src/main.ts <args>` to completion (a command such as `migrate`) and answers its exit code and output. */
export function runHeraldCommand(args: string[], env: Record<string, string>): Promise<{ code: number | null; output: string }> {
  const child = spawn(process.execPath, [...heraldNodeFlags(), mainScript, ...args], { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  return new Promise((resolvePromise) => child.once('exit', (code) => resolvePromise({ code, output })));
}
