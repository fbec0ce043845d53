import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';

/** Clock ticks per second of /proc's CPU times (USER_HZ), 100 on Linux unless `getconf` says otherwise. */
const ticksPerSecond = ((): number => {
  try {
    const ticks = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim());
    return Number.isInteger(ticks) && ticks > 0 ? ticks : 100;
  } catch {
    return 100;
  }
})();

/** CPU seconds (user + system) one process has used so far, all its threads, from /proc/<pid>/stat. */
export function cpuSeconds(pid: number): number {
  return statCpuSeconds(`/proc/${pid}/stat`);
}

/**
 * CPU seconds of the process's threads so far, summed by kind: `main`
 * (JavaScript's thread), `gc` (V8's platform threads: concurrent marking,
 * parallel scavenges, the compiler's jobs), `libuv` (the pool: file system,
 * DNS, zlib, crypto), `other` (signal, inspector, worker threads). A thread
 * that ended since an earlier call is no longer counted.
 */
export function threadCpuSeconds(pid: number): Record<ThreadKind, number> {
  const kinds = noThreadCpu();
  let tasks: string[];
  try {
    tasks = readdirSync(`/proc/${pid}/task`);
  } catch {
    return kinds;
  }
  for (const task of tasks) {
    try {
      const stat = readFileSync(`/proc/${pid}/task/${task}/stat`, 'utf8');
      kinds[threadKind(Number(task) === pid, stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')')))] += statFieldsCpu(stat);
    } catch {
      // The thread ended between the listing and the read.
    }
  }
  return kinds;
}

export const threadKinds = ['main', 'gc', 'libuv', 'other'] as const;
export type ThreadKind = (typeof threadKinds)[number];

/** Zero seconds for every kind of thread. */
export function noThreadCpu(): Record<ThreadKind, number> {
  return { main: 0, gc: 0, libuv: 0, other: 0 };
}

function threadKind(main: boolean, name: string): ThreadKind {
  if (main) return 'main';
  // V8's platform threads: V8Worker and DelayedTaskSche (node 22 and later), "V8 DefaultWorke" before.
  if (name.startsWith('V8') || name.startsWith('DelayedTask')) return 'gc';
  if (name.startsWith('libuv-worker')) return 'libuv';
  return 'other';
}

function statCpuSeconds(path: string): number {
  return statFieldsCpu(readFileSync(path, 'utf8'));
}

function statFieldsCpu(stat: string): number {
  // The command name may hold spaces and parentheses: fields are counted after its closing parenthesis.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  // utime and stime are fields 14 and 15 of the whole line, 12 and 13 after the name.
  return (Number(fields[11]) + Number(fields[12])) / ticksPerSecond;
}

export interface MemoryStats {
  /** Resident set size now, MB. */
  rssMb: number;
  /** Highest resident set size since the process started (VmHWM), MB. */
  peakRssMb: number;
}

/** Resident memory of one process, from /proc/<pid>/status. */
export function memoryStats(pid: number): MemoryStats {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (name: string): number => Number(new RegExp(`^${name}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? Number.NaN);
  return { rssMb: kb('VmRSS') / 1024, peakRssMb: kb('VmHWM') / 1024 };
}
