import { basename } from 'node:path';
import type { BenchHerald } from './bench-herald.ts';
import type { BroadcastResult } from './follow-broadcast.ts';
import type { RunProbe } from './measured-run.ts';
import type { RunMedians } from './push-report.ts';
import { cpuSeconds } from './process-stats.ts';
import { addBreakdowns, phases, profilePid, profileSamples, scaledTo, type PhaseSeconds, type ProfileWindow } from './profile-breakdown.ts';

/** One profiled run's CPU by phase: over all of its processes, and by role. */
export interface RunBreakdown {
  deliveries: number;
  /** The broadcast, on the monotonic clock the profiles' samples are stamped with (µs), to read them again. */
  window: ProfileWindow;
  /** The names of the profiles read (in the profile folder), by role. */
  profiles: Record<string, string[]>;
  /** The processes' CPU between the request and the record's `done` (/proc), summed, s. */
  profiledSeconds: number;
  total: PhaseSeconds;
  byRole: Record<string, PhaseSeconds>;
}

/** The monotonic clock now, µs: the clock `--cpu-prof` stamps its samples with. */
function monotonicMicros(): number {
  return Number(process.hrtime.bigint() / 1000n);
}

/**
 * Marks when a run's broadcast starts and its record reads `done` (around
 * another probe's own checks), and which process runs which role, so that the
 * run's CPU profiles can be read over the broadcast alone.
 */
export class BreakdownProbe implements RunProbe {
  readonly #inner: RunProbe | undefined;
  #window: ProfileWindow | null = null;
  #roles = new Map<number, string>();
  /** Each process's CPU (/proc) at the start of the broadcast, then over it. */
  #cpu = new Map<number, number>();

  constructor(inner?: RunProbe) {
    this.#inner = inner;
  }

  async beforeBroadcast(herald: BenchHerald): Promise<void> {
    await this.#inner?.beforeBroadcast(herald);
    this.#roles = new Map(herald.processes.map((process) => [process.pid, process.role]));
    this.#cpu = new Map(herald.processes.map((process) => [process.pid, cpuSeconds(process.pid)]));
    this.#window = { fromMicros: monotonicMicros(), toMicros: Number.POSITIVE_INFINITY };
  }

  async afterBroadcast(herald: BenchHerald, broadcast: BroadcastResult): Promise<Record<string, unknown>> {
    if (this.#window !== null) this.#window.toMicros = monotonicMicros();
    for (const [pid, before] of this.#cpu) this.#cpu.set(pid, cpuSeconds(pid) - before);
    return (await this.#inner?.afterBroadcast(herald, broadcast)) ?? {};
  }

  /**
   * The run's profiles by phase over the broadcast: each process's samples
   * as shares of its CPU over the broadcast (/proc), summed; `deliveries` to
   * put them per delivery.
   */
  breakdown(profiles: readonly string[], deliveries: number): RunBreakdown {
    if (this.#window === null) throw new Error('the broadcast was not marked: the probe was not used');
    const byRole: Record<string, PhaseSeconds[]> = {};
    const files: Record<string, string[]> = {};
    for (const file of profiles) {
      const pid = profilePid(file) ?? -1;
      const role = this.#roles.get(pid);
      if (role === undefined) continue;
      (files[role] ??= []).push(basename(file));
      (byRole[role] ??= []).push(scaledTo(profileSamples(file, this.#window), this.#cpu.get(pid) ?? 0));
    }
    const roles = Object.fromEntries(Object.entries(byRole).map(([role, parts]) => [role, rounded(addBreakdowns(parts))]));
    const total = rounded(addBreakdowns(Object.values(byRole).flat()));
    const profiledSeconds = Object.values(total).reduce((sum, value) => sum + value, 0);
    return { deliveries, window: { ...this.#window }, profiles: files, profiledSeconds: Math.round(profiledSeconds * 1000) / 1000, total, byRole: roles };
  }
}

/**
 * The two setups' CPU by phase, µs per delivery, one phase a line, with the
 * difference: where the distributed setup's extra CPU goes.
 */
export function breakdownTable(embedded: RunBreakdown, distributed: RunBreakdown): string {
  const micros = (run: RunBreakdown, phase: string): number => ((run.total[phase] ?? 0) * 1e6) / run.deliveries;
  const shown = phases.filter((phase) => micros(embedded, phase) >= 0.05 || micros(distributed, phase) >= 0.05);
  const rows: [string, string, string, string][] = shown.map((phase) => {
    const [a, b] = [micros(embedded, phase), micros(distributed, phase)];
    return [phase, a.toFixed(1), b.toFixed(1), signed(b - a)];
  });
  const sum = (run: RunBreakdown): number => (run.profiledSeconds * 1e6) / run.deliveries;
  rows.push(['all processes (/proc)', sum(embedded).toFixed(1), sum(distributed).toFixed(1), signed(sum(distributed) - sum(embedded))]);
  const header: [string, string, string, string] = ['Herald CPU by phase, µs per delivery', 'embedded', 'distributed', 'difference'];
  const widths = [0, 1, 2, 3].map((column) => Math.max(...[header, ...rows].map((row) => row[column]?.length ?? 0)));
  const line = (row: readonly string[]): string => row.map((cell, column) => (column === 0 ? cell.padEnd(widths[0] as number) : cell.padStart(widths[column] as number))).join('  ');
  const roles = Object.entries(distributed.byRole)
    .map(([role, seconds]) => `${role} ${Object.values(seconds).reduce((total, value) => total + value, 0).toFixed(2)} s`)
    .join(', ');
  return [line(header), ...rows.map(line), `distributed, CPU by role over the broadcast: ${roles}`].join('\n');
}

function signed(value: number): string {
  return `${value >= 0 ? '+' : ''}${value.toFixed(1)}`;
}

function rounded(seconds: PhaseSeconds): PhaseSeconds {
  return Object.fromEntries(Object.entries(seconds).map(([phase, value]) => [phase, Math.round(value * 1000) / 1000]));
}

/** The target: the distributed setup's deliveries per core-second at least this share of the embedded one's, in the same run. */
export const coreSecondTarget = 0.8;

/** Distributed over embedded deliveries per core-second (the medians), and the line saying it. */
export function coreSecondRatio(embedded: RunMedians, distributed: RunMedians): { ratio: number | null; line: string } {
  const [a, b] = [embedded.deliveriesPerCoreSecond, distributed.deliveriesPerCoreSecond];
  if (a === null || b === null || a === 0) return { ratio: null, line: 'deliveries per core-second, distributed to embedded: - (a record did not read done)' };
  const ratio = Math.round((b / a) * 100) / 100;
  const verdict = ratio >= coreSecondTarget ? 'meets' : 'misses';
  return { ratio, line: `deliveries per core-second, distributed to embedded: ${ratio.toFixed(2)} (${verdict} the target of ${coreSecondTarget})` };
}
