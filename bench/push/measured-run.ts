import type { RawConfig } from '../../src/config/schema.ts';
import type { BenchGateways } from './bench-gateways.ts';
import { startBenchHerald, type BenchApp, type BenchHerald, type BenchHeraldOptions } from './bench-herald.ts';
import { followBroadcast, type BroadcastResult } from './follow-broadcast.ts';
import { measureCeiling, type CeilingSettings } from './h2load-ceiling.ts';
import { measureNodeHttp2Floor, type FloorSettings } from './node-http2-floor.ts';
import { pushRun, recordCounts, type PushRun } from './push-report.ts';

/** Checks a run makes on the running Herald besides following the broadcast; what `afterBroadcast` answers is kept with the run. */
export interface RunProbe {
  /** Once Herald has settled, just before the broadcast. */
  beforeBroadcast(herald: BenchHerald): Promise<void>;
  /** Once the push record reads `done`, while Herald still runs; throws when something is wrong. */
  afterBroadcast(herald: BenchHerald, broadcast: BroadcastResult): Promise<Record<string, unknown>>;
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
  /** The bare node:http2 client measured after the second ceiling. */
  floor: FloorSettings;
  herald?: BenchHeraldOptions;
  probe?: RunProbe;
  out: (line: string) => void;
}

/**
 * One broadcast between two measurements of the fake APNs's ceiling: h2load,
 * then Herald started (one process or several) and left to settle, the
 * broadcast followed to its last delivery and its record read `done`, Herald
 * stopped, h2load again, then the bare `node:http2` client. The ceiling and
 * the floor are measured with Herald gone, so they never compete for the cores.
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
  const floor = await measureNodeHttp2Floor(gateways, options.data, options.floor);
  out(`${label}: node:http2 alone ${floor.requestsPerSecond.toLocaleString('en-US')} req/s at ${floor.cpuMicrosPerRequest} µs of CPU per request (${floor.sessions} sessions, ${floor.inFlight} in flight)`);
  const run = pushRun(broadcast, before, after, floor);
  return { run: checks === undefined ? run : { ...run, checks }, profiles };
}
