import type { RawConfig } from '../../src/config/schema.ts';
import type { BenchGateways } from './bench-gateways.ts';
import { startBenchHerald, type BenchApp, type BenchHerald, type BenchHeraldOptions } from './bench-herald.ts';
import { followBroadcast, type BroadcastResult } from './follow-broadcast.ts';
import { measureCeiling, type CeilingSettings } from './h2load-ceiling.ts';
import { measureFloors, type ClientFloor, type FloorSettings } from './client-floor.ts';
import { pushRun, recordCounts, type PushRun } from './push-report.ts';

/** Checks a run makes on the running Herald besides following the broadcast; what `afterBroadcast` answers is kept with the run. */
export interface RunProbe {
  /** Once Herald has settled, just before the broadcast. */
  beforeBroadcast(herald: BenchHerald): Promise<void>;
  /** Once the push record reads `done`, while Herald still runs; throws when something is wrong. */
  afterBroadcast(herald: BenchHerald, broadcast: BroadcastResult): Promise<Record<string, unknown>>;
}

/** Two probes as one: each runs in turn, `first` first, and what they keep is merged. */
export function bothProbes(first: RunProbe, second: RunProbe): RunProbe {
  return {
    beforeBroadcast: async (herald) => {
      await first.beforeBroadcast(herald);
      await second.beforeBroadcast(herald);
    },
    afterBroadcast: async (herald, broadcast) => ({ ...(await first.afterBroadcast(herald, broadcast)), ...(await second.afterBroadcast(herald, broadcast)) }),
  };
}

export interface MeasuredRunOptions {
  /** Put before each line printed, e.g. `run 1/3`. */
  label: string;
  config: RawConfig;
  app: BenchApp;
  gateways: BenchGateways;
  data: Record<string, unknown>;
  devices: number;
  ceiling: CeilingSettings;
  /** The clients measured alone after the second ceiling: bare node:http2, then Herald's ApnsClient. */
  floor: FloorSettings;
  herald?: BenchHeraldOptions;
  probe?: RunProbe;
  out: (line: string) => void;
}

/**
 * One broadcast between two measurements of the fake APNs's ceiling: h2load,
 * then Herald started (one process or several) and left to settle, the
 * broadcast followed to its last delivery and its record read `done`, Herald
 * stopped, h2load again, then bare `node:http2` and Herald's `ApnsClient`
 * each alone, in alternating turns. The ceiling and the floors are measured
 * with Herald gone, so they never compete for the cores.
 */
export async function measuredRun(options: MeasuredRunOptions): Promise<{ run: PushRun; profiles: string[] }> {
  const { label, gateways, out } = options;
  const before = await measureCeiling(gateways, options.data, options.ceiling);
  out(`${label}: h2load ceiling ${before.requestsPerSecond.toLocaleString('en-US')} req/s (-c ${before.connections} -m ${before.streams}, ${before.seconds} s)`);
  const herald = await startBenchHerald(options.config, options.herald);
  let profiles: string[];
  let broadcast: BroadcastResult;
  let checks: Record<string, unknown> | undefined;
  try {
    const settled = await herald.settle();
    if (settled > 2) out(`${label}: Herald was busy for ${settled.toFixed(1)} s after start (the scheduler's first sweep reads every installation)`);
    await options.probe?.beforeBroadcast(herald);
    broadcast = await followBroadcast(herald, options.app, gateways, options.data, options.devices);
    broadcast.record = recordCounts(broadcast.record);
    checks = await options.probe?.afterBroadcast(herald, broadcast);
  } finally {
    profiles = await herald.stop();
    await gateways.reset();
  }
  // Measured again once Herald is gone: the machine's other work comes and goes, and the two together show by how much.
  const after = await measureCeiling(gateways, options.data, options.ceiling);
  out(`${label}: h2load ceiling after it ${after.requestsPerSecond.toLocaleString('en-US')} req/s`);
  const { floor, apnsClient } = await measureFloors(gateways, options.data, options.floor);
  out(floorLine(label, floor));
  out(floorLine(label, apnsClient));
  const run = pushRun(broadcast, before, after, { floor, apnsClient });
  return { run: checks === undefined ? run : { ...run, checks }, profiles };
}

function floorLine(label: string, floor: ClientFloor): string {
  return `${label}: ${floor.client} alone ${floor.requestsPerSecond.toLocaleString('en-US')} req/s at ${floor.cpuMicrosPerRequest} µs of CPU per request (${floor.sessions} sessions, ${floor.inFlight} in flight)`;
}
