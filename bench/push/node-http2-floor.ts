import { execFile } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { buildApnsTemplate } from '../../src/push/payload/apns-template.ts';
import { defaultMaxInFlight } from '../../src/push/sender/sender.ts';
import type { BenchGateways } from './bench-gateways.ts';

const run = promisify(execFile);
const childScript = resolve(import.meta.dirname, 'node-http2-floor-child.ts');

export interface FloorSettings {
  /** Measured requests, each to a token of its own. */
  requests: number;
  /** HTTP/2 sessions, as Herald's `sessionsPerOrigin`. */
  sessions: number;
  /** Requests in flight at once, as a Herald sender's delivery window. */
  inFlight: number;
}

/**
 * The floor for a run: as many requests as devices, at most 100,000 (enough
 * for a steady figure, short beside a 1,000,000 run), over Herald's sessions
 * with one sender's delivery window in flight.
 */
export function floorSettings(devices: number, sessionsPerOrigin: number): FloorSettings {
  return { requests: Math.min(devices, 100_000), sessions: sessionsPerOrigin, inFlight: defaultMaxInFlight };
}

/** What the parent hands the child (argv[2], JSON). */
export interface FloorChildSettings extends FloorSettings {
  origin: string;
  caFile: string;
  payloadFile: string;
  /** Request headers after `:method` and `:path`, as a flat name/value list. */
  headers: string[];
  /** Requests sent first and not measured. */
  warmUp: number;
}

/** What the child prints. */
export interface FloorChildResult {
  requests: number;
  ok: number;
  seconds: number;
  cpuSeconds: number;
}

/** The bare client's figures: what Node's own HTTP/2 client costs against the same fake, Herald's code taken away. */
export interface NodeHttp2Floor extends FloorSettings {
  requestsPerSecond: number;
  cpuMicrosPerRequest: number;
  /** Cores the client kept busy. */
  cores: number;
}

/**
 * The floor under Herald's figures: a child process that is nothing but a
 * `node:http2` client (the Node binary Herald runs on) sends what Herald
 * sends — the same TLS, headers in the same raw form, provider token and
 * body, to distinct tokens — with Herald's sessions and requests in flight,
 * to the same fake APNs. Its CPU per request is what any Node sender pays
 * before doing anything of its own; Herald's figures over it show what
 * Herald adds.
 */
export async function measureNodeHttp2Floor(gateways: BenchGateways, data: Record<string, unknown>, settings: FloorSettings): Promise<NodeHttp2Floor> {
  const template = buildApnsTemplate({ data, expiresAt: null });
  const payloadFile = join(gateways.pki.dir, 'floor-payload.json');
  writeFileSync(payloadFile, template.body);
  const jwt = await gateways.providerToken();
  const child: FloorChildSettings = {
    ...settings,
    origin: gateways.apns.origin,
    caFile: gateways.pki.ca.certFile,
    payloadFile,
    headers: ['apns-topic', gateways.pki.apns.topic, 'apns-push-type', template.pushType, 'authorization', `bearer ${jwt}`, 'apns-priority', String(template.priority)],
    warmUp: Math.min(5000, settings.requests),
  };
  const { stdout } = await run(process.execPath, [childScript, JSON.stringify(child)], { maxBuffer: 1024 * 1024 });
  const counts = await gateways.apns.counts();
  await gateways.reset();
  const result = JSON.parse(stdout.trim().split('\n').at(-1) ?? '{}') as FloorChildResult;
  const expected = settings.requests + child.warmUp;
  if (result.ok !== settings.requests || counts.deliveries !== expected) {
    throw new Error(`the node:http2 floor's requests were not all delivered: ${result.ok}/${settings.requests} answered 200, the fake counted ${counts.deliveries}/${expected}`);
  }
  return {
    ...settings,
    requestsPerSecond: Math.round(result.requests / result.seconds),
    cpuMicrosPerRequest: Math.round((result.cpuSeconds / result.requests) * 1e7) / 10,
    cores: Math.round((result.cpuSeconds / result.seconds) * 100) / 100,
  };
}
