import { setTimeout as sleep } from 'node:timers/promises';
import type { BenchGateways, GatewayCounts } from './bench-gateways.ts';
import type { BenchApp, BenchHerald } from './bench-herald.ts';
import { makerNames, type FakeMakersCounts, type FakeMakersProcess, type MakerName } from './fake-makers-process.ts';
import { cpuSeconds, memoryStats } from './process-stats.ts';
import { ProgressBar } from './progress-bar.ts';
import type { Seeded } from './seed-installations.ts';

export type VendorGateway = 'apns' | 'fcm' | MakerName;
export const vendorGatewayNames: readonly VendorGateway[] = ['apns', 'fcm', ...makerNames];

/** One gateway's share of the broadcast, as its fake counted it. */
export interface GatewayFigures {
  gateway: VendorGateway;
  /** Devices of the audience it serves. */
  devices: number;
  deliveries: number;
  distinctTokens: number;
  duplicates: number;
  refused: number;
  /** From sending the push to this gateway's first and last delivery, ms. */
  firstDeliveryMs: number | null;
  lastDeliveryMs: number | null;
  /** Its deliveries over its own first-to-last span. */
  deliveriesPerSecond: number;
  /** Requests to its send endpoints: one per device for APNs and FCM; a maker's batches (vivo: its saved messages too). */
  requests: number;
  /** Requests that named tokens, the most one named, and the mean. */
  sends: number;
  largestRequest: number | null;
  tokensPerSend: number;
}

export interface VendorBroadcast {
  expected: number;
  deliveries: number;
  /** From the first delivery to the last, at any gateway. */
  deliveriesPerSecond: number;
  firstDeliveryMs: number;
  lastDeliveryMs: number;
  recordDoneMs: number | null;
  /** Herald's CPU from just before the request to the last delivery, s, and per delivery, µs. */
  heraldCpuSeconds: number;
  cpuMicrosPerDelivery: number;
  /** Until the record read `done`, and the deliveries over it. */
  heraldCpuSecondsToDone: number | null;
  deliveriesPerCoreSecond: number | null;
  rssBeforeMb: number;
  peakRssMb: number;
  /** The fakes' CPU over the same span, s. */
  fakeCpuSeconds: { apns: number; fcm: number; makers: number };
  gateways: GatewayFigures[];
  /** `herald_push_deliveries_total` by gateway and outcome, as Herald counted them. */
  heraldCounts: Record<string, Record<string, number>>;
  record: Record<string, unknown> | null;
}

/** How many devices of the seeded audience each gateway serves. */
export function vendorGateways(seeded: Seeded): Record<VendorGateway, number> {
  const of = (vendor: string): number => seeded.byVendor[vendor] ?? 0;
  return { apns: seeded.ios, fcm: of('fcm'), hms: of('HMS'), honor: of('honor'), xiaomi: of('mi') + of('mi-intl'), oppo: of('oppo'), vivo: of('vivo'), meizu: of('mz') };
}

interface Snapshot {
  at: number;
  counts: GatewayCounts;
  makers: FakeMakersCounts;
}

/** How long without a single new delivery before the run is declared stuck. */
const stallMs = 60_000;

/**
 * Sends one broadcast to every installation and follows it through every
 * fake's counts, polled every 10 ms, noting when each gateway saw its first
 * and last delivery; then waits for the push record to read `done` and reads
 * Herald's own counts per gateway from `/metrics`.
 */
export async function followVendorBroadcast(
  herald: BenchHerald,
  app: BenchApp,
  fakes: { gateways: BenchGateways; makers: FakeMakersProcess },
  data: Record<string, unknown>,
  perGateway: Record<VendorGateway, number>,
): Promise<VendorBroadcast> {
  const base = `http://127.0.0.1:${herald.port}`;
  const expected = Object.values(perGateway).reduce((sum, devices) => sum + devices, 0);
  const snapshot = async (): Promise<Snapshot> => {
    const [counts, makers] = await Promise.all([fakes.gateways.counts(), fakes.makers.counts()]);
    return { at: performance.now(), counts, makers };
  };
  const [process] = herald.processes;
  if (process === undefined) throw new Error('Herald runs no process');
  const baseline = await snapshot();
  const memoryBefore = memoryStats(process.pid);
  const cpuBefore = cpuSeconds(process.pid);
  const sentAt = performance.now();
  const headers = { 'X-SVC-Id': app.id, 'X-SVC-Key': `${app.masterKey},master`, 'Content-Type': 'application/json' };
  const response = await fetch(`${base}/1.1/push`, { method: 'POST', headers, body: JSON.stringify({ data }) });
  const body = (await response.json()) as { objectId?: string };
  if (response.status !== 201 || typeof body.objectId !== 'string') throw new Error(`POST /1.1/push answered ${response.status}: ${JSON.stringify(body)}`);

  const bar = new ProgressBar('pushing', expected);
  const first = new Map<VendorGateway, number>();
  const last = new Map<VendorGateway, number>();
  let latest = baseline;
  let cpuAtLast: number;
  let seen = 0;
  let progressAt = performance.now();
  for (;;) {
    await sleep(10);
    latest = await snapshot();
    const delivered = deliveredBy(baseline, latest);
    for (const gateway of vendorGatewayNames) {
      const count = delivered[gateway];
      if (count > 0 && !first.has(gateway)) first.set(gateway, latest.at);
      if (count >= perGateway[gateway] && !last.has(gateway)) last.set(gateway, latest.at);
    }
    const total = vendorGatewayNames.reduce((sum, gateway) => sum + delivered[gateway], 0);
    if (total !== seen) {
      seen = total;
      progressAt = latest.at;
    }
    bar.update(total);
    if (total >= expected) {
      cpuAtLast = cpuSeconds(process.pid);
      break;
    }
    if (latest.at - progressAt > stallMs) {
      bar.finish('stalled');
      throw new Error(`no delivery for ${stallMs / 1000} s after ${total} of ${expected}: ${JSON.stringify(delivered)}`);
    }
  }
  bar.finish();
  const memory = memoryStats(process.pid);
  const { record, doneAt } = await waitForRecord(base, app, body.objectId);
  const cpuAtDone = doneAt === null ? null : cpuSeconds(process.pid);
  const heraldCounts = await deliveryCounts(base);

  const delivered = deliveredBy(baseline, latest);
  const deliveries = vendorGatewayNames.reduce((sum, gateway) => sum + delivered[gateway], 0);
  const firstAt = Math.min(...first.values());
  const lastAt = latest.at;
  const heraldCpuSeconds = cpuAtLast - cpuBefore;
  const heraldCpuSecondsToDone = cpuAtDone === null ? null : cpuAtDone - cpuBefore;
  const fakeCpu = (now: { cpu: { user: number; system: number } } | undefined, then: { cpu: { user: number; system: number } } | undefined): number =>
    now === undefined || then === undefined ? 0 : round((now.cpu.user + now.cpu.system - then.cpu.user - then.cpu.system) / 1e6, 2);
  return {
    expected,
    deliveries,
    deliveriesPerSecond: perSecond(deliveries, firstAt, lastAt),
    firstDeliveryMs: Math.round(firstAt - sentAt),
    lastDeliveryMs: Math.round(lastAt - sentAt),
    recordDoneMs: doneAt === null ? null : Math.round(doneAt - sentAt),
    heraldCpuSeconds: round(heraldCpuSeconds, 2),
    cpuMicrosPerDelivery: round((heraldCpuSeconds * 1e6) / Math.max(1, deliveries), 1),
    heraldCpuSecondsToDone: heraldCpuSecondsToDone === null ? null : round(heraldCpuSecondsToDone, 2),
    deliveriesPerCoreSecond: heraldCpuSecondsToDone === null ? null : Math.round(deliveries / Math.max(0.01, heraldCpuSecondsToDone)),
    rssBeforeMb: Math.round(memoryBefore.rssMb),
    peakRssMb: Math.round(memory.peakRssMb),
    fakeCpuSeconds: { apns: fakeCpu(latest.counts.apns, baseline.counts.apns), fcm: fakeCpu(latest.counts.fcm, baseline.counts.fcm), makers: fakeCpu(latest.makers, baseline.makers) },
    gateways: vendorGatewayNames.map((gateway) => gatewayFigures(gateway, perGateway[gateway], baseline, latest, first.get(gateway), last.get(gateway), sentAt)),
    heraldCounts,
    record,
  };
}

/** Deliveries each fake accepted since `baseline`. */
function deliveredBy(baseline: Snapshot, now: Snapshot): Record<VendorGateway, number> {
  const delivered = {
    apns: now.counts.apns.deliveries - baseline.counts.apns.deliveries,
    fcm: (now.counts.fcm?.deliveries ?? 0) - (baseline.counts.fcm?.deliveries ?? 0),
  } as Record<VendorGateway, number>;
  for (const maker of makerNames) delivered[maker] = now.makers.makers[maker].deliveries - baseline.makers.makers[maker].deliveries;
  return delivered;
}

function gatewayFigures(
  gateway: VendorGateway,
  devices: number,
  baseline: Snapshot,
  now: Snapshot,
  firstAt: number | undefined,
  lastAt: number | undefined,
  sentAt: number,
): GatewayFigures {
  const timing = {
    firstDeliveryMs: firstAt === undefined ? null : Math.round(firstAt - sentAt),
    lastDeliveryMs: lastAt === undefined ? null : Math.round(lastAt - sentAt),
  };
  if (gateway === 'apns' || gateway === 'fcm') {
    const then = baseline.counts[gateway];
    const counts = now.counts[gateway];
    const deliveries = (counts?.deliveries ?? 0) - (then?.deliveries ?? 0);
    const requests = (counts?.requests ?? 0) - (then?.requests ?? 0);
    return {
      gateway,
      devices,
      deliveries,
      distinctTokens: (counts?.distinctTokens ?? 0) - (then?.distinctTokens ?? 0),
      duplicates: (counts?.duplicates ?? 0) - (then?.duplicates ?? 0),
      refused: requests - deliveries,
      ...timing,
      deliveriesPerSecond: firstAt === undefined || lastAt === undefined ? 0 : perSecond(deliveries, firstAt, lastAt),
      requests,
      sends: requests,
      largestRequest: requests > 0 ? 1 : null,
      tokensPerSend: requests > 0 ? 1 : 0,
    };
  }
  const then = baseline.makers.makers[gateway];
  const counts = now.makers.makers[gateway];
  const deliveries = counts.deliveries - then.deliveries;
  const sends = counts.sends - then.sends;
  return {
    gateway,
    devices,
    deliveries,
    distinctTokens: counts.distinctTokens - then.distinctTokens,
    duplicates: counts.duplicates - then.duplicates,
    refused: counts.refused - then.refused,
    ...timing,
    deliveriesPerSecond: firstAt === undefined || lastAt === undefined ? 0 : perSecond(deliveries, firstAt, lastAt),
    requests: counts.requests - then.requests,
    sends,
    // Since the fakes started: the broadcast is the run's only push.
    largestRequest: counts.largestRequest,
    tokensPerSend: sends > 0 ? round(deliveries / sends, 1) : 0,
  };
}

/** Polls the push record (app key) until it reads `done`; gives up after a minute. */
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

/** `herald_push_deliveries_total` by gateway and outcome, from the process's `/metrics` (served on the api port by one process). */
async function deliveryCounts(base: string): Promise<Record<string, Record<string, number>>> {
  const response = await fetch(`${base}/metrics`);
  if (response.status !== 200) throw new Error(`GET /metrics answered ${response.status}`);
  const counts: Record<string, Record<string, number>> = {};
  for (const line of (await response.text()).split('\n')) {
    const match = /^herald_push_deliveries_total\{([^}]*)\} (\S+)/.exec(line);
    if (match === null) continue;
    const labels = new Map([...(match[1] as string).matchAll(/(\w+)="([^"]*)"/g)].map((label): [string, string] => [String(label[1]), String(label[2])]));
    const gateway = labels.get('gateway');
    const outcome = labels.get('outcome');
    if (gateway === undefined || outcome === undefined) continue;
    counts[gateway] = { ...counts[gateway], [outcome]: Number(match[2]) };
  }
  return counts;
}

function perSecond(count: number, from: number, to: number): number {
  return to > from ? Math.round(count / ((to - from) / 1000)) : 0;
}

function round(value: number, digits: number): number {
  const scale = 10 ** digits;
  return Math.round(value * scale) / scale;
}
