import { execFile } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { buildApnsTemplate } from '../../src/push/payload/apns-template.ts';
import type { PushEngineConfig } from '../../src/config/push-schema.ts';
import type { GatewayTransportKind } from '../../src/push/gateways/gateway-transport.ts';
import type { BenchGateways } from './bench-gateways.ts';

const run = promisify(execFile);
const childScript = resolve(import.meta.dirname, 'client-floor-child.ts');

/** The client a floor is measured with: bare `node:http2`, or Herald's `ApnsClient` without the engine around it. */
export type FloorClient = 'node:http2' | 'ApnsClient';

export interface FloorSettings {
  /** Measured requests, each to a token of its own. */
  requests: number;
  /** HTTP/2 sessions, as Herald's `sessionsPerOrigin.apns`. */
  sessions: number;
  /** Requests in flight at once, as a Herald sender's delivery window. */
  inFlight: number;
  /** The transport of the ApnsClient floor, as Herald's `push.gateways.transport`. */
  transport: GatewayTransportKind;
}

/**
 * The floors for a run: as many requests as devices, at most 100,000 (enough
 * for a steady figure, short beside a 1,000,000 run), over Herald's sessions
 * with the least of a sender's delivery window in flight (what it keeps
 * against a gateway next door).
 */
export function floorSettings(devices: number, push: PushEngineConfig): FloorSettings {
  return { requests: Math.min(devices, 100_000), sessions: push.gateways.sessionsPerOrigin.apns, inFlight: push.deliveryWindow.min, transport: push.gateways.transport };
}

/** What the parent hands the child (argv[2], JSON). */
export interface FloorChildSettings extends FloorSettings {
  client: FloorClient;
  origin: string;
  caFile: string;
  payloadFile: string;
  topic: string;
  pushType: string;
  priority: 5 | 10;
  /** The bare client's provider token; Herald's client signs its own with the key. */
  jwt: string;
  keyFile: string;
  keyId: string;
  teamId: string;
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

/** One client's figures against the fake, nothing else in its process. */
export interface ClientFloor extends FloorSettings {
  client: FloorClient;
  requestsPerSecond: number;
  cpuMicrosPerRequest: number;
  /** Cores the client kept busy. */
  cores: number;
}

/** Turns each client gets, alternating, so that the machine's drift weighs on both alike. */
const floorTurns = 2;

/**
 * What sending alone costs, below Herald's figures: a child process (the Node
 * binary Herald runs on) that is nothing but one APNs client sends what Herald
 * sends — the same TLS, headers in the same raw form, provider token and body,
 * to distinct tokens — with Herald's sessions and requests in flight, to the
 * same fake APNs. With `node:http2` its CPU per request is what a Node
 * sender on Node's own HTTP/2 client pays before doing anything of its own;
 * with `ApnsClient` it is Herald's whole gateway layer on Herald's transport
 * (connections, pool, provider tokens, the answer's classification), so
 * that Herald's figure over it shows what the engine adds.
 *
 * The two are measured in alternating turns (bare, ApnsClient, bare,
 * ApnsClient), each turn sending its share of `settings.requests`; each
 * client's figures are over all its turns.
 */
export async function measureFloors(gateways: BenchGateways, data: Record<string, unknown>, settings: FloorSettings): Promise<{ floor: ClientFloor; apnsClient: ClientFloor }> {
  const template = buildApnsTemplate({ data, expiresAt: null });
  const payloadFile = join(gateways.pki.dir, 'floor-payload.json');
  writeFileSync(payloadFile, template.body);
  const { pki } = gateways;
  const requests = Math.ceil(settings.requests / floorTurns);
  const turn: Omit<FloorChildSettings, 'client'> = {
    ...settings,
    requests,
    origin: gateways.apns.origin,
    caFile: pki.ca.certFile,
    payloadFile,
    topic: pki.apns.topic,
    pushType: template.pushType,
    priority: template.priority,
    jwt: await gateways.providerToken(),
    keyFile: pki.apns.key.file,
    keyId: pki.apns.key.keyId,
    teamId: pki.apns.teamId,
    warmUp: Math.min(5000, requests),
  };
  const turns: Record<FloorClient, FloorChildResult[]> = { 'node:http2': [], ApnsClient: [] };
  for (let index = 0; index < floorTurns; index += 1) {
    for (const client of ['node:http2', 'ApnsClient'] as const) turns[client].push(await runTurn(gateways, { ...turn, client }));
  }
  const floorOf = (client: FloorClient): ClientFloor => ({ ...settings, client, ...figures(turns[client]) });
  return { floor: floorOf('node:http2'), apnsClient: floorOf('ApnsClient') };
}

/** One turn of one client in its own process; throws unless the fake got every request once. */
async function runTurn(gateways: BenchGateways, child: FloorChildSettings): Promise<FloorChildResult> {
  const { stdout } = await run(process.execPath, [childScript, JSON.stringify(child)], { maxBuffer: 1024 * 1024 });
  const counts = await gateways.apns.counts();
  await gateways.reset();
  const result = JSON.parse(stdout.trim().split('\n').at(-1) ?? '{}') as FloorChildResult;
  const expected = child.requests + child.warmUp;
  if (result.ok !== child.requests || counts.deliveries !== expected) {
    throw new Error(`${child.client}'s requests were not all delivered: ${result.ok}/${child.requests} answered 200, the fake counted ${counts.deliveries}/${expected}`);
  }
  return result;
}

/** A client's figures over its turns: requests, seconds and CPU summed. */
function figures(results: readonly FloorChildResult[]): Pick<ClientFloor, 'requests' | 'requestsPerSecond' | 'cpuMicrosPerRequest' | 'cores'> {
  const requests = results.reduce((sum, result) => sum + result.requests, 0);
  const seconds = results.reduce((sum, result) => sum + result.seconds, 0);
  const cpuSeconds = results.reduce((sum, result) => sum + result.cpuSeconds, 0);
  return {
    requests,
    requestsPerSecond: Math.round(requests / seconds),
    cpuMicrosPerRequest: Math.round((cpuSeconds / requests) * 1e7) / 10,
    cores: Math.round((cpuSeconds / seconds) * 100) / 100,
  };
}
