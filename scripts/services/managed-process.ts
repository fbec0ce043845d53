import { spawn } from 'node:child_process';
import { mkdir, open, readFile, rename, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';

/** How to run a service in the foreground. */
export interface ProcessSpec {
  readonly command: string;
  readonly args: readonly string[];
  readonly cwd: string;
  readonly env?: NodeJS.ProcessEnv;
}

/** A process just started, with its exit as it happens (it never settles while the process runs). */
export interface StartedProcess {
  readonly pid: number;
  readonly exited: Promise<string>;
}

/**
 * One long-running process this tool starts and later stops. `<name>.pid`
 * holds its pid and `<name>.cmdline` its exact command line, so a pid that
 * was reused by an unrelated process is never mistaken for ours, and
 * `stop()` signals only a process whose /proc/<pid>/cmdline still matches.
 */
export class ManagedProcess {
  readonly pidFile: string;
  readonly logFile: string;
  private readonly cmdlineFile: string;

  constructor(options: { name: string; dir: string }) {
    this.pidFile = path.join(options.dir, `${options.name}.pid`);
    this.cmdlineFile = path.join(options.dir, `${options.name}.cmdline`);
    this.logFile = path.join(options.dir, `${options.name}.log`);
  }

  /** The pid of the process this tool started, while it runs; otherwise undefined. */
  async runningPid(): Promise<number | undefined> {
    const recorded = await this.readRecord();
    if (!recorded) return undefined;
    const actual = await readFile(`/proc/${recorded.pid}/cmdline`).catch(() => undefined);
    // A zombie or a process that is gone has an empty or missing cmdline.
    return actual?.equals(recorded.cmdline) ? recorded.pid : undefined;
  }

  /**
   * Starts `spec` in its own session (so a Ctrl-C of the starting terminal
   * does not reach it), stdin closed, stdout and stderr to the log file. The
   * previous run's log is kept as `<name>.log.1`.
   */
  async start(spec: ProcessSpec): Promise<StartedProcess> {
    await mkdir(path.dirname(this.pidFile), { recursive: true });
    await rename(this.logFile, `${this.logFile}.1`).catch(ignoreMissing);
    const log = await open(this.logFile, 'a');
    let started: StartedProcess;
    try {
      await log.write(`# ${new Date().toISOString()} ${[spec.command, ...spec.args].join(' ')}\n`);
      const child = spawn(spec.command, spec.args, { cwd: spec.cwd, env: spec.env ?? process.env, detached: true, stdio: ['ignore', log.fd, log.fd] });
      const exited = new Promise<string>((resolve) => {
        child.once('exit', (code, signal) => resolve(signal ? `was killed by ${signal}` : `exited with code ${code}`));
      });
      await new Promise<void>((resolve, reject) => {
        child.once('spawn', resolve);
        child.once('error', reject);
      });
      // The services outlive this process: `down` stops them, not our exit.
      child.unref();
      started = { pid: child.pid!, exited };
    } finally {
      await log.close();
    }
    const cmdline = Buffer.from([spec.command, ...spec.args].map((arg) => `${arg}\0`).join(''));
    await writeFile(this.cmdlineFile, cmdline);
    await writeFile(this.pidFile, `${started.pid}\n`);
    return started;
  }

  /**
   * Stops the process this tool started: SIGTERM, then SIGKILL when it is
   * still running after `graceMs` (or SIGKILL at once when `first` says so).
   * Returns the pid it stopped, or undefined when none of ours was running
   * (a stale pidfile is removed either way).
   */
  async stop(graceMs: number, first: 'SIGTERM' | 'SIGKILL' = 'SIGTERM'): Promise<number | undefined> {
    const pid = await this.runningPid();
    if (pid !== undefined) {
      signal(pid, first);
      if (first === 'SIGTERM' && !(await waitForExit(pid, graceMs))) signal(pid, 'SIGKILL');
      if (!(await waitForExit(pid, 10_000))) throw new Error(`pid ${pid} is still running after SIGKILL`);
    }
    await rm(this.pidFile, { force: true });
    await rm(this.cmdlineFile, { force: true });
    return pid;
  }

  private async readRecord(): Promise<{ pid: number; cmdline: Buffer } | undefined> {
    try {
      const pid = Number((await readFile(this.pidFile, 'utf8')).trim());
      if (!Number.isSafeInteger(pid) || pid <= 1) return undefined;
      return { pid, cmdline: await readFile(this.cmdlineFile) };
    } catch (error) {
      ignoreMissing(error);
      return undefined;
    }
  }
}

/** Whether a process runs: it exists and is neither a zombie nor dead. */
async function isAlive(pid: number): Promise<boolean> {
  try {
    const stat = await readFile(`/proc/${pid}/stat`, 'utf8');
    const state = stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3);
    return state !== 'Z' && state !== 'X';
  } catch {
    return false;
  }
}

async function waitForExit(pid: number, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (await isAlive(pid)) {
    if (Date.now() >= deadline) return false;
    await delay(100);
  }
  return true;
}

function signal(pid: number, name: NodeJS.Signals): void {
  try {
    process.kill(pid, name);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ESRCH') throw error;
  }
}

function ignoreMissing(error: unknown): void {
  if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
}
