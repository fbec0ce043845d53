import { setTimeout as sleep } from 'node:timers/promises';
import type { BenchGateways, GatewayCounts } from './bench-gateways.ts';
import type { BenchApp, BenchHerald, BenchProcess } from './bench-herald.ts';
import { cpuSeconds, memoryStats, noThreadCpu, threadCpuSeconds, threadKinds, type MemoryStats, type ThreadKind } from './process-stats.ts';
import { ProgressBar } from './progress-bar.ts';

export interface BroadcastResult {
  /** The push's objectId, as \`POST /1.1/push\` answered it. */
  pushId: string;
  expected: number;
  /** Requests the fakes accepted (answered 200) during the broadcast: their own count, not Herald's. */
  deliveries: number;
  /** The same by gateway: the fake APNs's and the fake FCM's (null without Android devices). */
  gatewayDeliveries: { apns: number; fcm: number | null };
  /** Deliveries per second from the first delivery to the last. */
  deliveriesPerSecond: number;
  /** From sending `POST /1.1/push` to the fakes' first and last accepted delivery, ms. */
  firstDeliveryMs: number;
  lastDeliveryMs: number;
  /** Until the push record read `done`, ms. */
  recordDoneMs: number | null;
  /** Herald's CPU from just before the request to the last delivery, s (summed over its processes). */
  heraldCpuSeconds: number;
  cpuMicrosPerDelivery: number;
  /** Herald's CPU from just before the request until the push record read `done`: the whole broadcast, its bookkeeping included, s. */
  heraldCpuSecondsToDone: number | null;
  /** The main threads' share of `heraldCpuSecondsToDone` (JavaScript's thread of each process, without helper threads), s. */
  mainThreadCpuSecondsToDone: number | null;
  /** Herald's CPU to the record's done by kind of thread (summed over its processes), s. */
  threadCpuSecondsToDone: Record<ThreadKind, number> | null;
  /** Deliveries over `heraldCpuSecondsToDone`: what one core's second of Herald delivers. */
  deliveriesPerCoreSecond: number | null;
  /** Herald's VmRSS and VmHWM just before the request (after start-up), MB; with several processes, their sum. */
  rssBeforeMb: number;
  peakRssBeforeMb: number;
  /** Herald's VmHWM after the run, and the highest VmRSS sampled, MB; with several processes, the sum of each one's. */
  peakRssMb: number;
  sampledPeakRssMb: number;
  /** The same figures for each Herald process. */
  processes: ProcessFigures[];
  /** The fakes' CPU over the same span, s: near the wall time means a fake was the limit. */
  fakeCpuSeconds: { apns: number; fcm: number | null };
  exactlyOnce: { distinctTokens: number; duplicates: number; refused: number; ok: boolean };
  record: Record<string, unknown> | null;
}

/** One Herald process's share of a broadcast. */
export interface ProcessFigures {
  role: string;
  /** CPU from just before the request to the last delivery, and until the record read `done`, s. */
  cpuSeconds: number;
  cpuSecondsToDone: number | null;
  rssBeforeMb: number;
  /** VmHWM after the run, MB. */
  peakRssMb: number;
  sampledPeakRssMb: number;
}

/** How long without a single new delivery before the run is declared stuck. */
const stallMs = 60_000;

/**
 * Sends one broadcast (`POST /1.1/push` with the master key, no `where`: every
 * installation; with `where`, those it matches) and follows it through the
 * fakes' counts, polled over IPC every few milliseconds so that the first and
 * last delivery are timed closely; then waits for the push record to read
 * `done` and keeps its counters.
 */
export async function followBroadcast(
  herald: BenchHerald,
  app: BenchApp,
  gateways: BenchGateways,
  data: Record<string, unknown>,
  expected: number,
  where?: Record<string, unknown>,
): Promise<BroadcastResult> {
  const base = `http://127.0.0.1:${herald.port}`;
  const headers = { 'X-SVC-Id': app.id, 'X-SVC-Key': `${app.masterKey},master`, 'Content-Type': 'application/json' };
  const baseline = await gateways.counts();
  const { processes } = herald;
  const memoryBefore = processes.map((process) => memoryStats(process.pid));
  const cpuBefore = cpuOf(processes);
  const threadsBefore = threadCpuOf(processes);
  const sentAt = performance.now();
  const response = await fetch(`${base}/1.1/push`, { method: 'POST', headers, body: JSON.stringify(where === undefined ? { data } : { where, data }) });
  const body = (await response.json()) as { objectId?: string };
  if (response.status !== 201 || typeof body.objectId !== 'string') throw new Error(`POST /1.1/push answered ${response.status}: ${JSON.stringify(body)}`);
  const pushId = body.objectId;

  const bar = new ProgressBar('pushing', expected);
  let firstAt: number | undefined;
  let lastAt: number | undefined;
  let cpuAtLast: number[] = [];
  let counts: GatewayCounts = baseline;
  let progressAt = performance.now();
  let seen = 0;
  while (lastAt === undefined) {
    await sleep(firstAt === undefined ? 2 : 10);
    counts = await gateways.counts();
    const now = performance.now();
    const delivered = counts.deliveries - baseline.deliveries;
    if (delivered > 0) firstAt ??= now;
    if (delivered !== seen) {
      seen = delivered;
      progressAt = now;
    }
    if (delivered >= expected) {
      lastAt = now;
      cpuAtLast = cpuOf(processes);
    } else if (now - progressAt > stallMs) {
      bar.finish('stalled');
      throw new Error(`no delivery for ${stallMs / 1000} s after ${delivered} of ${expected}; fakes: ${JSON.stringify(counts)}`);
    }
    bar.update(delivered, counts.refused > baseline.refused ? `(${counts.refused - baseline.refused} refused)` : '');
  }
  bar.finish();
  const memory = processes.map((process) => memoryStats(process.pid));
  const { record, doneAt } = await waitForRecord(base, app, pushId);
  const cpuAtDone = doneAt === null ? null : cpuOf(processes);
  const threadsAtDone = doneAt === null ? null : threadCpuOf(processes);
  const first = firstAt ?? lastAt;
  const used = (at: number[], index: number): number => (at[index] as number) - (cpuBefore[index] as number);
  const figures: ProcessFigures[] = processes.map((process, index) => ({
    role: process.role,
    cpuSeconds: round(used(cpuAtLast, index), 2),
    cpuSecondsToDone: cpuAtDone === null ? null : round(used(cpuAtDone, index), 2),
    rssBeforeMb: Math.round((memoryBefore[index] as MemoryStats).rssMb),
    peakRssMb: Math.round((memory[index] as MemoryStats).peakRssMb),
    sampledPeakRssMb: Math.round(process.sampledPeakRssMb()),
  }));
  const heraldCpuSeconds = sum(processes.map((_, index) => used(cpuAtLast, index)));
  const heraldCpuSecondsToDone = cpuAtDone === null ? null : sum(processes.map((_, index) => used(cpuAtDone, index)));
  const deliveries = counts.deliveries - baseline.deliveries;
  const fakeCpu = (now: GatewayCounts['apns'] | GatewayCounts['fcm'], then: GatewayCounts['apns'] | GatewayCounts['fcm']): number =>
    now === undefined || then === undefined ? 0 : (now.cpu.user + now.cpu.system - then.cpu.user - then.cpu.system) / 1e6;
  const distinctTokens = counts.distinctTokens - baseline.distinctTokens;
  const duplicates = counts.duplicates - baseline.duplicates;
  const refused = counts.refused - baseline.refused;
  return {
    pushId,
    expected,
    deliveries,
    gatewayDeliveries: {
      apns: counts.apns.deliveries - baseline.apns.deliveries,
      fcm: counts.fcm === undefined ? null : counts.fcm.deliveries - (baseline.fcm?.deliveries ?? 0),
    },
    deliveriesPerSecond: lastAt > first ? Math.round(deliveries / ((lastAt - first) / 1000)) : 0,
    firstDeliveryMs: Math.round(first - sentAt),
    lastDeliveryMs: Math.round(lastAt - sentAt),
    recordDoneMs: doneAt === null ? null : Math.round(doneAt - sentAt),
    heraldCpuSeconds: round(heraldCpuSeconds, 2),
    cpuMicrosPerDelivery: round((heraldCpuSeconds * 1e6) / Math.max(1, deliveries), 1),
    heraldCpuSecondsToDone: heraldCpuSecondsToDone === null ? null : round(heraldCpuSecondsToDone, 2),
    mainThreadCpuSecondsToDone: threadsAtDone === null ? null : round(threadsAtDone.main - threadsBefore.main, 2),
    threadCpuSecondsToDone: threadsAtDone === null ? null : threadCpuSince(threadsAtDone, threadsBefore),
    deliveriesPerCoreSecond: heraldCpuSecondsToDone === null ? null : Math.round(deliveries / Math.max(0.01, heraldCpuSecondsToDone)),
    rssBeforeMb: Math.round(sum(memoryBefore.map((stats) => stats.rssMb))),
    peakRssBeforeMb: Math.round(sum(memoryBefore.map((stats) => stats.peakRssMb))),
    peakRssMb: Math.round(sum(memory.map((stats) => stats.peakRssMb))),
    sampledPeakRssMb: Math.round(sum(processes.map((process) => process.sampledPeakRssMb()))),
    processes: figures,
    fakeCpuSeconds: { apns: round(fakeCpu(counts.apns, baseline.apns), 2), fcm: counts.fcm === undefined ? null : round(fakeCpu(counts.fcm, baseline.fcm), 2) },
    exactlyOnce: { distinctTokens, duplicates, refused, ok: distinctTokens === expected && duplicates === 0 && deliveries === expected },
    record,
  };
}

/** Polls the push record by objectId (app key) until it reads `done`; gives up after a minute. */
async function waitForRecord(base: string, app: BenchApp, pushId: string): Promise<{ record: Record<string, unknown> | null; doneAt: number | null }> {
  const headers = { 'X-SVC-Id': app.id, 'X-SVC-Key': app.key };
  const giveUpAt = performance.now() + 60_000;
  let record: Record<string, unknown> | null = null;
  while (performance.now() < giveUpAt) {
    const response = await fetch(`${base}/1.1/tables/Notifications/${pushId}`, { headers });
    record = response.status === 200 ? ((await response.json()) as Record<string, unknown>) : null;
    if (record?.status === 'done') return { record, doneAt: performance.now() };
    await sleep(50);
  }
  return { record, doneAt: null };
}

function cpuOf(processes: readonly BenchProcess[]): number[] {
  return processes.map((process) => cpuSeconds(process.pid));
}

/** CPU by kind of thread (the main thread's among them), summed over the processes, s. */
function threadCpuOf(processes: readonly BenchProcess[]): Record<ThreadKind, number> {
  const total = noThreadCpu();
  for (const process of processes) {
    const threads = threadCpuSeconds(process.pid);
    for (const kind of threadKinds) total[kind] += threads[kind];
  }
  return total;
}

function threadCpuSince(now: Record<ThreadKind, number>, then: Record<ThreadKind, number>): Record<ThreadKind, number> {
  const used = noThreadCpu();
  for (const kind of threadKinds) used[kind] = round(now[kind] - then[kind], 2);
  return used;
}

function sum(values: readonly number[]): number {
  return values.reduce((total, value) => total + value, 0);
}

function round(value: number, digits: number): number {
  const scale = 10 ** digits;
  return Math.round(value * scale) / scale;
}
