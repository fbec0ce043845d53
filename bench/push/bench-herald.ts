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

/** Herald as `npm start` runs it, in its own process, with what the benchmark reads from outside. */
export interface BenchHerald {
  port: number;
  pid: number;
  /** Highest VmRSS seen by the sampler, MB; VmHWM is the kernel's own peak. */
  sampledPeakRssMb(): number;
  /**
   * Waits until Herald has been nearly idle for half a second — start-up
   * work such as the scheduler's first sweep over every installation is done —
   * or 120 s have passed; answers the seconds waited.
   */
  settle(): Promise<number>;
  /** SIGTERM and wait; answers the CPU profile written, when profiling. */
  stop(): Promise<string | undefined>;
}

/**
 * Writes `config` to a file in its data directory and starts `node
 * src/main.ts` on it. With `profileDir`, Herald runs under `--cpu-prof` and
 * writes its profile there when it exits; `nodeOptions` (e.g. V8 heap flags)
 * go to Herald's NODE_OPTIONS only.
 */
export async function startBenchHerald(config: RawConfig, options: { profileDir?: string; nodeOptions?: string } = {}): Promise<BenchHerald> {
  const dataDir = config.dataDir ?? '.';
  mkdirSync(dataDir, { recursive: true });
  const configFile = join(dataDir, 'bench-config.json');
  writeFileSync(configFile, JSON.stringify(config, null, 2), { mode: 0o600 });
  const env: Record<string, string> = { HERALD_CONFIG: configFile };
  const { profileDir } = options;
  const nodeOptions = [process.env.NODE_OPTIONS ?? '', options.nodeOptions ?? ''];
  if (profileDir !== undefined) {
    mkdirSync(profileDir, { recursive: true });
    nodeOptions.push(`--cpu-prof --cpu-prof-dir=${profileDir}`);
  }
  const joined = nodeOptions.filter((option) => option !== '').join(' ');
  if (joined !== '') env.NODE_OPTIONS = joined;
  const profilesBefore = profileDir === undefined ? [] : readdirSync(profileDir);
  const herald: HeraldProcess = await startHeraldProcess(env);
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
    port: herald.port,
    pid,
    sampledPeakRssMb: () => peak,
    settle: async () => {
      const started = performance.now();
      let quiet = 0;
      let cpu = cpuSeconds(pid);
      // /proc counts CPU in 10 ms ticks: at most 2 ticks in 250 ms, twice running, is idle enough.
      while (quiet < 2 && performance.now() - started < 120_000) {
        await sleep(250);
        const now = cpuSeconds(pid);
        quiet = now - cpu <= 0.02 ? quiet + 1 : 0;
        cpu = now;
      }
      return (performance.now() - started) / 1000;
    },
    stop: async () => {
      clearInterval(sampler);
      const code = await herald.stop();
      if (code !== 0) process.stderr.write(`Herald exited with ${String(code)}:\n${herald.stdout().slice(-4000)}\n`);
      if (profileDir === undefined) return undefined;
      const written = readdirSync(profileDir).filter((name) => name.endsWith('.cpuprofile') && !profilesBefore.includes(name));
      return written.length > 0 ? join(profileDir, written[0] as string) : undefined;
    },
  };
}
