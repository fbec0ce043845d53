import { mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { RawConfig } from '../../src/config/schema.ts';
import { startHeraldProcess, type HeraldProcess } from '../../test/support/herald-process.ts';
import { setTimeout as sleep } from 'node:timers/promises';
import { cpuSeconds, memoryStats } from './process-stats.ts';

export interface BenchApp {
  id: string;
  key: string;
  masterKey: string;
}

/** One Herald process of a run, as the benchmark reads it from outside. */
export interface BenchProcess {
  /** The roles it runs, as given to `--role` (`all`, `api`, `sender`, …). */
  role: string;
  pid: number;
  /** Its internal port (`/metrics`, `/readyz`); 0 when those are served on the api port. */
  internalPort: number;
  /** Highest VmRSS seen by the sampler, MB; VmHWM is the kernel's own peak. */
  sampledPeakRssMb(): number;
}

/** Herald as `npm start` runs it, in one process or several, with what the benchmark reads from outside. */
export interface BenchHerald {
  /** The api role's port. */
  port: number;
  /** Every Herald process of the run, the one running the api role first. */
  processes: readonly BenchProcess[];
  /**
   * Waits until every process has been nearly idle for half a second —
   * start-up work such as the scheduler's first sweep over every installation
   * is done — or 120 s have passed; answers the seconds waited.
   */
  settle(): Promise<number>;
  /** SIGTERM to every process and wait; answers the CPU profiles written, when profiling. */
  stop(): Promise<string[]>;
}

export interface BenchHeraldOptions {
  /** Run under `--cpu-prof`, each process writing its profile here when it exits. */
  profileDir?: string;
  /**
   * Extra Node flags for Herald's processes (e.g. V8 heap flags), put on the
   * command line after package.json's `config.nodeFlags` so that they override
   * them.
   */
  nodeOptions?: string;
  /**
   * The `--role` of each process, the first of which must run the api role:
   * `['all']` (the default) is one process doing everything, as `npm start`.
   * With more than one, each process also serves `/metrics` and `/readyz` on
   * an internal port of its own.
   */
  layout?: readonly string[];
}

/**
 * Writes `config` to a file in its data directory and starts `node
 * src/main.ts` on it, once per entry of the layout: the first process alone
 * (it creates the bus topics), then the others together.
 */
export async function startBenchHerald(config: RawConfig, options: BenchHeraldOptions = {}): Promise<BenchHerald> {
  const layout = options.layout ?? ['all'];
  const [firstRole, ...otherRoles] = layout;
  if (firstRole === undefined || !/(^|,)(api|all)(,|$)/.test(firstRole)) throw new Error(`the first process of the layout must run the api role, not ${String(firstRole)}`);
  const dataDir = config.dataDir ?? '.';
  mkdirSync(dataDir, { recursive: true });
  const configFile = join(dataDir, 'bench-config.json');
  writeFileSync(configFile, JSON.stringify(config, null, 2), { mode: 0o600 });
  const env: Record<string, string> = { HERALD_CONFIG: configFile };
  const { profileDir } = options;
  const nodeFlags = (options.nodeOptions ?? '').split(/\s+/).filter((flag) => flag !== '');
  if (profileDir !== undefined) {
    mkdirSync(profileDir, { recursive: true });
    nodeFlags.push('--cpu-prof', `--cpu-prof-dir=${profileDir}`);
  }
  const profilesBefore = profileDir === undefined ? [] : readdirSync(profileDir);
  const internal: Record<string, string> = layout.length > 1 ? { HERALD_INTERNAL_PORT: '0' } : {};

  const started: WatchedProcess[] = [];
  const stopAll = async (): Promise<void> => {
    await Promise.all(started.map((watched) => watched.stop()));
  };
  try {
    started.push(watch(await startHeraldProcess({ ...env, ...internal, HERALD_ROLE: firstRole }, [], nodeFlags), firstRole));
    const others = await Promise.allSettled(otherRoles.map((role) => startHeraldProcess({ ...env, ...internal, HERALD_ROLE: role }, [], nodeFlags)));
    others.forEach((result, index) => {
      if (result.status === 'fulfilled') started.push(watch(result.value, otherRoles[index] as string));
    });
    const failed = others.find((result) => result.status === 'rejected');
    if (failed !== undefined) throw new Error('a Herald process did not start', { cause: failed.reason });
  } catch (error) {
    await stopAll();
    throw error;
  }
  const api = started[0] as WatchedProcess;
  return {
    port: api.herald.port,
    processes: started.map((watched) => watched.process),
    settle: () => settle(started.map((watched) => watched.process.pid)),
    stop: async () => {
      await stopAll();
      if (profileDir === undefined) return [];
      return readdirSync(profileDir)
        .filter((name) => name.endsWith('.cpuprofile') && !profilesBefore.includes(name))
        .map((name) => join(profileDir, name));
    },
  };
}

interface WatchedProcess {
  herald: HeraldProcess;
  process: BenchProcess;
  stop(): Promise<void>;
}

/** Samples a process's RSS every 200 ms until it is stopped. */
function watch(herald: HeraldProcess, role: string): WatchedProcess {
  const pid = herald.child.pid;
  if (pid === undefined) throw new Error('the Herald process has no pid');
  let peak = memoryStats(pid).rssMb;
  const sampler = setInterval(() => {
    try {
      peak = Math.max(peak, memoryStats(pid).rssMb);
    } catch {
      // The process is gone; the last sample stands.
    }
  }, 200);
  return {
    herald,
    process: { role, pid, internalPort: herald.internalPort, sampledPeakRssMb: () => peak },
    stop: async () => {
      clearInterval(sampler);
      const code = await herald.stop();
      if (code !== 0) process.stderr.write(`Herald (${role}) exited with ${String(code)}:\n${herald.stdout().slice(-4000)}\n`);
    },
  };
}

async function settle(pids: readonly number[]): Promise<number> {
  const started = performance.now();
  let quiet = 0;
  let cpu = pids.map(cpuSeconds);
  // /proc counts CPU in 10 ms ticks: at most 2 ticks per process in 250 ms, twice running, is idle enough.
  while (quiet < 2 && performance.now() - started < 120_000) {
    await sleep(250);
    const now = pids.map(cpuSeconds);
    quiet = now.every((seconds, index) => seconds - (cpu[index] as number) <= 0.02) ? quiet + 1 : 0;
    cpu = now;
  }
  return (performance.now() - started) / 1000;
}
