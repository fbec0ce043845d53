import type { Ceiling } from './h2load-ceiling.ts';
import type { BroadcastResult } from './follow-broadcast.ts';
import type { ClientFloor } from './client-floor.ts';

/** One broadcast with the ceiling measured just before and just after it. */
export interface PushRun {
  /** The mean of the two h2load figures, req/s. */
  ceiling: number;
  ceilingBefore: Ceiling;
  ceilingAfter: Ceiling;
  broadcast: BroadcastResult;
  /** Herald's deliveries/s over `ceiling`. */
  ratioToCeiling: number;
  /** A bare node:http2 client alone against the same fake, measured after the run. */
  floor: ClientFloor;
  /** Herald's ApnsClient alone against the same fake, measured after the run. */
  apnsClient: ClientFloor;
  /** Herald's deliveries/s over the bare client's requests/s. */
  ratioToFloor: number;
  /** CPU per delivery: Herald's gateway layer against the bare client (ApnsClient alone less bare; below zero where it costs less), and what its engine adds (Herald less ApnsClient alone). */
  cpuMicrosAdded: { gatewayLayer: number; engine: number };
  /** What the run checked on the running Herald besides the deliveries (the distributed run's Kafka path). */
  checks?: Record<string, unknown>;
}

export function pushRun(broadcast: BroadcastResult, before: Ceiling, after: Ceiling, floors: { floor: ClientFloor; apnsClient: ClientFloor }): PushRun {
  const { floor, apnsClient } = floors;
  const ceiling = Math.round((before.requestsPerSecond + after.requestsPerSecond) / 2);
  return {
    ceiling,
    ceilingBefore: before,
    ceilingAfter: after,
    broadcast,
    ratioToCeiling: hundredths(broadcast.deliveriesPerSecond / ceiling),
    floor,
    apnsClient,
    ratioToFloor: hundredths(broadcast.deliveriesPerSecond / floor.requestsPerSecond),
    cpuMicrosAdded: {
      gatewayLayer: tenths(apnsClient.cpuMicrosPerRequest - floor.cpuMicrosPerRequest),
      engine: tenths(broadcast.cpuMicrosPerDelivery - apnsClient.cpuMicrosPerRequest),
    },
  };
}

function hundredths(value: number): number {
  return Math.round(value * 100) / 100;
}

/** A difference of two CPU figures; one below zero says only that the machine's noise was larger than the difference. */
function added(micros: number): string {
  return micros < 0 ? `${tenths(micros)} (below this machine's noise)` : String(tenths(micros));
}

function tenths(value: number): number {
  return Math.round(value * 10) / 10;
}

/** The issue's targets on a 2-core machine (embedded store, 100,000 iOS devices; RSS at 1,000,000). */
export const targets = { ratioToCeiling: 0.8, cpuMicrosPerDelivery: 40, peakRssMb: 300 } as const;

const recordCounters = ['status', 'devices', 'successes', 'errors', 'invalidTokens', 'iosSuccesses', 'androidSuccesses', 'errorReasons'] as const;

/** The counters of a push record, without its payload and engine fields. */
export function recordCounts(record: Record<string, unknown> | null): Record<string, unknown> | null {
  if (record === null) return null;
  return Object.fromEntries(recordCounters.filter((name) => record[name] !== undefined).map((name) => [name, record[name]]));
}

/** A setup's figures over its runs. */
export interface RunMedians {
  deliveriesPerSecond: number;
  ceiling: number;
  ratioToCeiling: number;
  cpuMicrosPerDelivery: number;
  /** Over the runs whose record read `done`; null when none did. */
  heraldCpuSecondsToDone: number | null;
  deliveriesPerCoreSecond: number | null;
  peakRssMb: number;
  floorRequestsPerSecond: number;
  floorCpuMicrosPerRequest: number;
  apnsClientCpuMicrosPerRequest: number;
  ratioToFloor: number;
}

/** The median of each figure over the runs (the middle run for an odd count); the peak RSS is the highest. */
export function medianOf(runs: readonly PushRun[]): RunMedians {
  const cpuToDone = runs.flatMap((run) => (run.broadcast.heraldCpuSecondsToDone === null ? [] : [run.broadcast.heraldCpuSecondsToDone]));
  const perCoreSecond = runs.flatMap((run) => (run.broadcast.deliveriesPerCoreSecond === null ? [] : [run.broadcast.deliveriesPerCoreSecond]));
  return {
    deliveriesPerSecond: Math.round(median(runs.map((run) => run.broadcast.deliveriesPerSecond))),
    ceiling: Math.round(median(runs.map((run) => run.ceiling))),
    ratioToCeiling: Math.round(median(runs.map((run) => run.ratioToCeiling)) * 100) / 100,
    cpuMicrosPerDelivery: Math.round(median(runs.map((run) => run.broadcast.cpuMicrosPerDelivery)) * 10) / 10,
    heraldCpuSecondsToDone: cpuToDone.length === 0 ? null : Math.round(median(cpuToDone) * 100) / 100,
    deliveriesPerCoreSecond: perCoreSecond.length === 0 ? null : Math.round(median(perCoreSecond)),
    peakRssMb: Math.max(...runs.map((run) => run.broadcast.peakRssMb)),
    floorRequestsPerSecond: Math.round(median(runs.map((run) => run.floor.requestsPerSecond))),
    floorCpuMicrosPerRequest: tenths(median(runs.map((run) => run.floor.cpuMicrosPerRequest))),
    apnsClientCpuMicrosPerRequest: tenths(median(runs.map((run) => run.apnsClient.cpuMicrosPerRequest))),
    ratioToFloor: hundredths(median(runs.map((run) => run.ratioToFloor))),
  };
}

/** The middle value, or the mean of the two middle ones for an even count. */
export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? (sorted[middle] as number) : ((sorted[middle - 1] as number) + (sorted[middle] as number)) / 2;
}

/** One line per run: the figures the issue asks for, then whether each target was met. */
export function runTable(runs: readonly PushRun[]): string {
  const columns = ['run', 'deliv/s', 'ceiling/s', 'ratio', 'floor/s', 'H÷floor', 'CPU s', 'µs/deliv', 'floor µs', 'client µs', 'deliv/core-s', 'cores H/F', 'RSS before', 'peak RSS', 'first ms', 'last ms', 'done ms', 'exactly once'];
  const widths = [4, 9, 10, 6, 8, 8, 7, 9, 9, 10, 13, 10, 11, 9, 9, 9, 9, 14];
  const line = (cells: string[]): string => cells.map((cell, index) => (index === 0 ? cell.padEnd(widths[index] ?? 8) : cell.padStart(widths[index] ?? 8))).join(' ');
  const rows = runs.map((run, index) => {
    const { broadcast: b } = run;
    const once = b.exactlyOnce.ok ? 'yes' : `NO (${b.exactlyOnce.distinctTokens}/${b.expected}, ${b.exactlyOnce.duplicates} dup)`;
    return line([
      String(index + 1),
      b.deliveriesPerSecond.toLocaleString('en-US'),
      `${run.ceiling.toLocaleString('en-US')}`,
      run.ratioToCeiling.toFixed(2),
      run.floor.requestsPerSecond.toLocaleString('en-US'),
      run.ratioToFloor.toFixed(2),
      b.heraldCpuSeconds.toFixed(2),
      b.cpuMicrosPerDelivery.toFixed(1),
      run.floor.cpuMicrosPerRequest.toFixed(1),
      run.apnsClient.cpuMicrosPerRequest.toFixed(1),
      b.deliveriesPerCoreSecond === null ? '-' : b.deliveriesPerCoreSecond.toLocaleString('en-US'),
      coresBusy(b),
      `${b.rssBeforeMb} MB`,
      `${b.peakRssMb} MB`,
      String(b.firstDeliveryMs),
      String(b.lastDeliveryMs),
      b.recordDoneMs === null ? '-' : String(b.recordDoneMs),
      once,
    ]);
  });
  return [line(columns), ...rows].join('\n');
}

/** What `runTable`'s less obvious columns mean. */
export const runTableLegend =
  "CPU s and µs/deliv: Herald's CPU from the request to the last delivery; deliv/core-s: deliveries over Herald's CPU until the push record read done; " +
  "floor/s and floor µs: a bare node:http2 client (one process, Herald's sessions and requests in flight) against the same fake, its rate and CPU per request; " +
  "client µs: the same with Herald's ApnsClient alone on Herald's transport; H÷floor: Herald's rate over the floor's; cores H/F: cores Herald and the fakes kept busy; with several Herald processes, CPU and RSS are their sums";

/** Herald's and the fakes' CPU over the push as cores kept busy: a process near 1.0 is what limits the rate. */
function coresBusy(b: BroadcastResult): string {
  const seconds = Math.max(0.001, (b.lastDeliveryMs - b.firstDeliveryMs) / 1000);
  const fakes = b.fakeCpuSeconds.apns + (b.fakeCpuSeconds.fcm ?? 0);
  return `${(b.heraldCpuSeconds / seconds).toFixed(2)}/${(fakes / seconds).toFixed(2)}`;
}

export function targetLines(runs: readonly PushRun[], devices: number): string {
  const median = medianOf(runs);
  const mark = (ok: boolean): string => (ok ? 'met' : 'NOT met');
  const lines = [
    `ratio to h2load ceiling: ${median.ratioToCeiling.toFixed(2)} (target ≥ ${targets.ratioToCeiling}) ${mark(median.ratioToCeiling >= targets.ratioToCeiling)}`,
    `Herald CPU per delivery: ${median.cpuMicrosPerDelivery} µs (target ≤ ${targets.cpuMicrosPerDelivery}) ${mark(median.cpuMicrosPerDelivery <= targets.cpuMicrosPerDelivery)}`,
    `node:http2 alone, same fake: ${median.floorRequestsPerSecond.toLocaleString('en-US')} req/s at ${median.floorCpuMicrosPerRequest} µs per request; Herald reaches ${median.ratioToFloor.toFixed(2)} of its rate. ` +
      `Herald's ApnsClient alone: ${median.apnsClientCpuMicrosPerRequest} µs per request; the engine adds ${added(median.cpuMicrosPerDelivery - median.apnsClientCpuMicrosPerRequest)} µs per delivery above it`,
    `peak RSS: ${median.peakRssMb} MB at ${devices.toLocaleString('en-US')} devices (target < ${targets.peakRssMb} MB at 1,000,000)${devices >= 1_000_000 ? ` ${mark(median.peakRssMb < targets.peakRssMb)}` : ''}`,
  ];
  return lines.join('\n');
}
