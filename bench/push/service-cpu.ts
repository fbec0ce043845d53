import { servicesStatus } from '../../scripts/services/services.ts';
import type { RunProbe } from './measured-run.ts';
import { median, type PushRun } from './push-report.ts';
import { cpuSeconds } from './process-stats.ts';

/** The local services a distributed run uses, whose own CPU Herald's figures leave out. */
export const benchServices = ['cassandra', 'kafka', 'redis'] as const;
export type BenchService = (typeof benchServices)[number];

/** Each service's CPU over one broadcast, s. */
export type ServiceCpu = Record<BenchService, number>;

/** The pid of each running service (`npm run services`); fails when one is not running. */
export async function servicePids(): Promise<Record<BenchService, number>> {
  const statuses = await servicesStatus([...benchServices]);
  const pids = {} as Record<BenchService, number>;
  for (const service of benchServices) {
    const pid = statuses.find((status) => status.name === service)?.pid;
    if (pid === undefined) throw new Error(`${service} is not running: its CPU cannot be measured`);
    pids[service] = pid;
  }
  return pids;
}

/**
 * Reads each service's CPU from /proc just before the broadcast and once the
 * push record reads `done`, and keeps the difference with the run as
 * `serviceCpuSeconds`. Put it first among probes, so that what the others read
 * afterwards (the delivery log's entries, Kafka's offsets) is not counted.
 */
export function serviceCpuProbe(pids: Record<BenchService, number>): RunProbe {
  let before: ServiceCpu | undefined;
  const read = (): ServiceCpu => Object.fromEntries(benchServices.map((service) => [service, cpuSeconds(pids[service])])) as ServiceCpu;
  return {
    beforeBroadcast: () => {
      before = read();
      return Promise.resolve();
    },
    afterBroadcast: () => {
      const now = read();
      const start = before ?? now;
      const used = Object.fromEntries(benchServices.map((service) => [service, Math.round((now[service] - start[service]) * 100) / 100])) as ServiceCpu;
      return Promise.resolve({ serviceCpuSeconds: used });
    },
  };
}

/** The services' own CPU per delivery, µs, medians over the runs that measured it (`serviceCpuProbe`); nothing when none did. */
export function serviceCpuFigures(runs: readonly PushRun[]): { serviceCpuMicrosPerDelivery?: ServiceCpu } {
  const measured = runs.flatMap((run) => {
    const used = run.checks?.serviceCpuSeconds as ServiceCpu | undefined;
    return used === undefined ? [] : [{ used, deliveries: run.broadcast.deliveries }];
  });
  if (measured.length === 0) return {};
  const perDelivery = Object.fromEntries(
    benchServices.map((service) => [service, Math.round(median(measured.map(({ used, deliveries }) => (used[service] * 1e6) / Math.max(1, deliveries))) * 10) / 10]),
  ) as ServiceCpu;
  return { serviceCpuMicrosPerDelivery: perDelivery };
}

/** The services count as quiet below this many cores, summed, over a whole second (Cassandra and Kafka idle take about 0.02). */
const quietCores = 0.1;
/** How long a run waits for the services to go quiet before it goes ahead anyway. */
const quietPatienceMs = 120_000;

/**
 * Waits until the services' summed CPU stays below `quietCores` for two
 * seconds in a row, or `quietPatienceMs` have gone: a run that starts while
 * Cassandra still flushes and compacts what the run before wrote (a
 * distributed broadcast writes every delivery's log entry and result) shares
 * the cores with that work, and its CPU per delivery counts it. Answers the
 * seconds waited, and whether they went quiet.
 */
export async function untilServicesQuiet(pids: Record<BenchService, number>): Promise<{ seconds: number; quiet: boolean }> {
  const started = performance.now();
  const total = (): number => benchServices.reduce((sum, service) => sum + cpuSeconds(pids[service]), 0);
  let calm = 0;
  let previous = total();
  let at = performance.now();
  while (calm < 2 && performance.now() - started < quietPatienceMs) {
    await new Promise((resolve) => setTimeout(resolve, 1000));
    const now = performance.now();
    const used = total();
    calm = (used - previous) / ((now - at) / 1000) < quietCores ? calm + 1 : 0;
    previous = used;
    at = now;
  }
  return { seconds: Math.round((performance.now() - started) / 100) / 10, quiet: calm >= 2 };
}

/** Before the broadcast, waits for the services to go quiet (`untilServicesQuiet`); keeps how long it waited as `servicesQuiet`. */
export function servicesQuietProbe(pids: Record<BenchService, number>, out: (line: string) => void, label: string): RunProbe {
  let waited: { seconds: number; quiet: boolean } | undefined;
  return {
    beforeBroadcast: async () => {
      waited = await untilServicesQuiet(pids);
      if (!waited.quiet) out(`${label}: the services were still busy after ${waited.seconds} s; the run went ahead beside them`);
      else if (waited.seconds > 3) out(`${label}: waited ${waited.seconds} s for the services to go quiet`);
    },
    afterBroadcast: () => Promise.resolve(waited === undefined ? {} : { servicesQuiet: waited }),
  };
}
