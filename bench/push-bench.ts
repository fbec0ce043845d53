/**
 * `npm run bench:push [-- --devices 100000] [--store sqlite|cassandra] [--android 0.5 | --android-vendors]
 *   [--distributed [--senders 2] [--breakdown] [--outcome-stream on|off]]
 *   [--shards N] [--slice N] [--concurrency N] [--sessions N] [--window MIN:MAX] [--gateway-latency MS]
 *   [--transport herald|http2-wrapper] [--webhook stalled] [--delivery-log-cost]
 *   [--repeat k] [--profile <dir>]
 *   [--herald-node-options '<flags>'] [--ceiling-connections 4] [--ceiling-streams 100] [--ceiling-seconds 5]`
 *
 * Seeds N installations straight into the store, starts Herald as its own
 * process with its gateways pointed at local fakes (APNs, and FCM for the
 * `--android` share, each in its own process), sends one broadcast and
 * reports deliveries/s, the time to the first and last delivery, Herald's
 * CPU seconds and peak RSS, and whether every device got exactly one
 * notification. Before and after each run it measures the fake APNs's
 * ceiling with h2load and prints Herald's rate as a share of their mean; after
 * each run, bare node:http2 and Herald's ApnsClient, each alone against the
 * same fake, show what sending costs without Herald's engine. Results go to
 * bench/results/push-<store>[-android].json (`-<devices>` added for other sizes).
 *
 * Each run also reports the most streams the fake APNs saw open at once and
 * the delivery window Herald ended with. `--gateway-latency MS` has the fake
 * answer each request of the broadcast MS ms late, as a real gateway across a
 * network does (the ceiling and floors are still measured without it), with `--window MIN:MAX` (Herald's `push.deliveryWindow`) to
 * compare with a fixed window (`--window 300:300`). Results get `-latency<MS>`.
 *
 * `--transport` sets Herald's `push.gateways.transport` (and the ApnsClient
 * floor's): `http2-wrapper` measures the node:http2 fallback. Results get
 * `-http2-wrapper`.
 *
 * `--webhook stalled` gives the app a webhook endpoint that takes every event,
 * `delivery.succeeded` included (one per device), at a local server that
 * never answers: what a dead endpoint costs the senders (docs/webhooks.md).
 * Results get `-webhook-stalled`.
 *
 * `--distributed` sends the same broadcast to the same audience (seeded the
 * same way) on the embedded default, every role in one process, and on
 * Cassandra, Redis and Kafka with one process per role: an api, a fanout, a
 * scheduler and `--senders` senders. It prints both setups' figures side by
 * side — deliveries/s, ratio to the ceiling, Herald CPU summed over its
 * processes, deliveries per core-second, peak RSS by process kind — and
 * fails unless every device got exactly one notification, the push records'
 * counters match the fakes' counts and the distributed broadcast went through
 * Kafka. Results go to bench/results/push-distributed[-android].json. It also
 * prints the ratio of the two setups' deliveries per core-second.
 * `--breakdown` runs every Herald process under `--cpu-prof` (into `--profile`
 * or a temporary folder) and breaks both setups' CPU over the broadcast down
 * by phase — installation page reads, the Cassandra driver, the Kafka client,
 * result rows, the delivery log, the outcome stream, gateway clients, HTTP/2 —
 * in µs per delivery (bench/push/distributed-breakdown.ts); results get
 * `-breakdown`, since the profiler's cost is in their figures.
 * `--outcome-stream on` turns on the distributed setup's outcome stream (off
 * by default, as in Herald's config; the embedded bus has none); results get
 * `-outcome-stream`. With `--delivery-log-cost`, the runs with the log on
 * have the stream on too. A `--senders` other than 2 adds `-senders<n>`, and
 * a `--slice` adds `-slice<n>`.
 *
 * `--delivery-log-cost` sends the broadcast with the delivery log on (default
 * settings, every success kept) and off, alternating in the same run, on the
 * embedded default and, with `--distributed`, on Cassandra, Redis and Kafka
 * too; it prints deliveries/s, CPU per delivery and peak RSS off and on with
 * their ratios against the limits (≥ 0.9× the rate, ≤ 1.15× the CPU), the
 * CPU by kind of thread (main, V8's platform threads, libuv's pool) and, on
 * the embedded setup, the garbage collections of each broadcast, and
 * checks the log lists one entry per device. It runs five pairs per setup
 * unless `--repeat` says otherwise: the ratios are medians over the pairs,
 * and a single pair can be a third off. Results go to
 * bench/results/push-sqlite-delivery-log.json and
 * push-distributed-delivery-log.json (delivery-log-cost.ts).
 *
 * `--android-vendors` sends one broadcast to a mixed audience instead: an
 * eighth each of iOS, FCM and each phone maker's devices (Huawei, Honor,
 * Xiaomi through mi and mi-intl, Meizu, OPPO, vivo, as the hosted service's
 * SDK spells them), the makers' fakes together in a third process beside
 * APNs's and FCM's. It prints deliveries/s overall and per gateway, Herald's
 * CPU per delivery and each maker's requests (how many tokens a request
 * carries), and fails unless every device got exactly one notification and
 * Herald's counts and the record agree with the fakes; no h2load ceiling or
 * client floor (those measure APNs). Results go to
 * bench/results/push-<store>-android-vendors.json (vendor-bench.ts).
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { compileConfig } from '../src/config/load-config.ts';
import { benchBackends, benchStores, type BenchStore } from './push/bench-backends.ts';
import { benchConfig, sessionsText, type EngineSettings } from './push/bench-config.ts';
import { BenchGateways } from './push/bench-gateways.ts';
import type { BenchApp } from './push/bench-herald.ts';
import { runDistributedBench } from './push/distributed-bench.ts';
import { runDeliveryLogCost } from './push/delivery-log-cost.ts';
import type { CeilingSettings } from './push/h2load-ceiling.ts';
import { measuredRun } from './push/measured-run.ts';
import { floorSettings } from './push/client-floor.ts';
import { windowProbe } from './push/window-probe.ts';
import { medianOf, runTable, runTableLegend, targetLines, type PushRun } from './push/push-report.ts';
import { seedInstallations } from './push/seed-installations.ts';
import { runVendorBench } from './push/vendor-bench.ts';
import { startStalledEndpoint } from './push/stalled-endpoint.ts';
import { count, fail } from './bench-args.ts';
import { gatewayTransportKinds, type GatewayTransportKind } from '../src/push/gateways/gateway-transport.ts';
import { machineDescription } from './machine.ts';
import { benchResultsDir, nodeOptionsSuffix, writeBenchResult } from './bench-results.ts';

const { values } = parseArgs({
  options: {
    devices: { type: 'string', default: '100000' },
    store: { type: 'string' },
    android: { type: 'string', default: '0' },
    'android-vendors': { type: 'boolean', default: false },
    distributed: { type: 'boolean', default: false },
    breakdown: { type: 'boolean', default: false },
    'beside-load': { type: 'boolean', default: false },
    'outcome-stream': { type: 'string' },
    senders: { type: 'string' },
    shards: { type: 'string' },
    slice: { type: 'string' },
    concurrency: { type: 'string' },
    sessions: { type: 'string' },
    window: { type: 'string' },
    'gateway-latency': { type: 'string' },
    transport: { type: 'string' },
    webhook: { type: 'string' },
    'delivery-log-cost': { type: 'boolean', default: false },
    repeat: { type: 'string' },
    profile: { type: 'string' },
    'herald-node-options': { type: 'string' },
    'ceiling-connections': { type: 'string', default: '4' },
    'ceiling-streams': { type: 'string', default: '100' },
    'ceiling-seconds': { type: 'string', default: '5' },
  },
});

const distributed = values.distributed;
const androidVendors = values['android-vendors'];
if (androidVendors && (distributed || values.android !== '0' || values['gateway-latency'] !== undefined || (values.repeat ?? '1') !== '1' || values.profile !== undefined)) {
  fail('--android-vendors is one broadcast of its own mixed audience in one process; leave out --distributed, --android, --gateway-latency, --repeat and --profile');
}
const deliveryLogCost = values['delivery-log-cost'];
if (deliveryLogCost && (androidVendors || values.store !== undefined || values.webhook !== undefined || values['gateway-latency'] !== undefined)) {
  fail('--delivery-log-cost compares the log on and off on the embedded default (and with --distributed, on Cassandra, Redis and Kafka); leave out --android-vendors, --store, --webhook and --gateway-latency');
}
if (distributed && values.store !== undefined) fail('--distributed compares the embedded default (SQLite, one process) with Cassandra, Redis and Kafka (a process per role); leave out --store');
if (!distributed && values.senders !== undefined) fail('--senders is for --distributed runs');
if (!distributed && values.breakdown) fail('--breakdown is for --distributed runs');
if (values['beside-load'] && (!distributed || values.breakdown || deliveryLogCost)) fail('--beside-load is for --distributed runs, without --breakdown or --delivery-log-cost');
if (values['outcome-stream'] !== undefined && (!distributed || !['on', 'off'].includes(values['outcome-stream']))) fail('--outcome-stream takes on or off, with --distributed');
const outcomeStream = values['outcome-stream'] === 'on';
const store = (values.store ?? 'sqlite') as BenchStore;
if (!benchStores.includes(store)) fail(`unknown store "${values.store}"; choose from: ${benchStores.join(', ')}`);
const devices = count('devices', values.devices, 1);
const androidShare = Number(values.android);
if (!(androidShare >= 0 && androidShare <= 1)) fail(`--android must be a share from 0 to 1, not ${values.android}`);
const senders = count('senders', values.senders ?? '2', 1);
/** A pair of runs can be a third off on a shared machine: the delivery log's cost is a median of five pairs unless told otherwise. */
const repeat = count('repeat', values.repeat ?? (deliveryLogCost ? '5' : '1'), 1);
const engine: EngineSettings = {
  installationShards: count('shards', values.shards, 1),
  sliceSize: count('slice', values.slice, 10),
  senderConcurrency: count('concurrency', values.concurrency, 1),
  apnsSessions: count('sessions', values.sessions, 1),
  deliveryWindow: windowBounds(values.window),
  transport: transportOf(values.transport),
};

function transportOf(text: string | undefined): GatewayTransportKind | undefined {
  if (text === undefined) return undefined;
  if (!(gatewayTransportKinds as readonly string[]).includes(text)) fail(`--transport must be one of ${gatewayTransportKinds.join(', ')}, not ${text}`);
  return text as GatewayTransportKind;
}
if (values.webhook !== undefined && values.webhook !== 'stalled') fail(`--webhook takes stalled, not ${values.webhook}`);
const stalledEndpoint = values.webhook === 'stalled' ? await startStalledEndpoint() : undefined;
if (stalledEndpoint !== undefined) engine.webhook = { url: stalledEndpoint.url, secret: randomBytes(24).toString('hex') };
const gatewayLatencyMs = count('gateway-latency', values['gateway-latency'], 1);
if (distributed && gatewayLatencyMs !== undefined) fail('--gateway-latency is for single-process runs');

function windowBounds(text: string | undefined): { min: number; max: number } | undefined {
  if (text === undefined) return undefined;
  const match = /^(\d+):(\d+)$/.exec(text);
  const [min, max] = [Number(match?.[1]), Number(match?.[2])];
  if (match === null || min < 1 || max < min) fail(`--window must be MIN:MAX with 1 ≤ MIN ≤ MAX, not ${text}`);
  return { min, max };
}
const ceilingSettings: CeilingSettings = {
  connections: count('ceiling-connections', values['ceiling-connections'], 1),
  streams: count('ceiling-streams', values['ceiling-streams'], 1),
  seconds: count('ceiling-seconds', values['ceiling-seconds'], 1),
};
const profileDir = values.profile === undefined ? undefined : resolve(values.profile);
const heraldNodeOptions = values['herald-node-options'];

/** What every device gets: an alert, a sound and a custom key, as a typical app sends (a string alert, since Android devices may be reached). */
const data = { alert: 'Your weekly summary is ready: 3 new messages and 2 updates.', sound: 'default', campaign: 'weekly-2026-47' };

const outDir = benchResultsDir;
// The default audience and layout keep the issue’s name; other sizes, sender counts, slices and Node flags get their own file, so a 1,000,000 run does not replace the 100,000 one.
const resultName = `push-${distributed ? 'distributed' : store}${androidShare > 0 ? '-android' : ''}${devices === 100_000 ? '' : `-${devices}`}${gatewayLatencyMs === undefined ? '' : `-latency${gatewayLatencyMs}`}${engine.transport === 'http2-wrapper' ? '-http2-wrapper' : ''}${stalledEndpoint === undefined ? '' : '-webhook-stalled'}${outcomeStream ? '-outcome-stream' : ''}${distributed && senders !== 2 ? `-senders${senders}` : ''}${engine.sliceSize === undefined ? '' : `-slice${engine.sliceSize}`}${values.breakdown ? '-breakdown' : ''}${values['beside-load'] ? '-beside-load' : ''}${nodeOptionsSuffix(heraldNodeOptions)}.json`;
const out = (line: string): boolean => process.stdout.write(`${line}\n`);

async function main(): Promise<void> {
  if (androidVendors) {
    await runVendorBench({
      devices,
      store,
      engine,
      herald: heraldNodeOptions === undefined ? {} : { nodeOptions: heraldNodeOptions },
      outDir,
      resultName: `push-${store}-android-vendors${devices === 100_000 ? '' : `-${devices}`}${engine.transport === 'http2-wrapper' ? '-http2-wrapper' : ''}.json`,
      out,
    });
    return;
  }
  const app: BenchApp = { id: 'bench', key: randomBytes(12).toString('hex'), masterKey: randomBytes(16).toString('hex') };
  const dataDir = mkdtempSync(join(tmpdir(), 'herald-push-bench-'));
  const backends = await benchBackends(store);
  const gateways = await BenchGateways.start({ fcm: androidShare > 0 });
  try {
    const raw = benchConfig({ app, dataDir, backends, gateways, engine });
    const config = compileConfig(raw);
    out(
      `push bench: ${devices.toLocaleString('en-US')} devices (${Math.round(androidShare * 100)}% Android) on ${store}; ` +
        `shards ${config.push.installationShards}, slice ${config.push.sliceSize}, sender concurrency ${config.push.senderConcurrency}, ` +
        `gateway sessions ${sessionsText(config.push.gateways.sessionsPerOrigin)}, ${config.push.gateways.transport} transport; ${cpus().length} cores, node ${process.version}`,
    );

    const seeded = await seedInstallations(config, app.id, { devices, androidShare });
    out(`seeded ${seeded.ios.toLocaleString('en-US')} iOS and ${seeded.android.toLocaleString('en-US')} Android installations in ${seeded.seconds.toFixed(1)} s (${Math.round(devices / seeded.seconds).toLocaleString('en-US')}/s)`);

    const floor = floorSettings(devices, config.push);
    const runs: PushRun[] = [];
    for (let index = 0; index < repeat; index += 1) {
      const herald = {
        ...(profileDir === undefined ? {} : { profileDir }),
        ...(heraldNodeOptions === undefined ? {} : { nodeOptions: heraldNodeOptions }),
      };
      const label = `run ${index + 1}/${repeat}`;
      const probe = windowProbe(gateways, gatewayLatencyMs, config.push.deliveryWindow.min, label, out);
      const { run, profiles } = await measuredRun({ label, config: raw, app, gateways, data, devices, ceiling: ceilingSettings, floor, herald, out, probe });
      runs.push(run);
      for (const profile of profiles) out(`Herald CPU profile: ${profile}`);
    }

    out('');
    out(runTable(runs));
    out(runTableLegend);
    out(targetLines(runs, devices));

    const report = {
      bench: 'push',
      date: new Date().toISOString(),
      machine: machineDescription(),
      note: 'Herald, the fakes (each in its own process), h2load and the bench share this machine with other work; compare the ratio to the ceiling measured beside each run',
      store,
      devices,
      seeded,
      settings: {
        installationShards: config.push.installationShards,
        sliceSize: config.push.sliceSize,
        senderConcurrency: config.push.senderConcurrency,
        sessionsPerOrigin: config.push.gateways.sessionsPerOrigin,
        transport: config.push.gateways.transport,
        deliveryWindow: config.push.deliveryWindow,
        gatewayLatencyMs: gatewayLatencyMs ?? null,
        heraldNodeOptions: heraldNodeOptions ?? null,
        ceiling: ceilingSettings,
        floor,
      },
      data,
      median: medianOf(runs),
      runs,
    };
    writeBenchResult(outDir, resultName, report, out);
  } finally {
    await gateways.close();
    await backends.drop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

const bench = deliveryLogCost
  ? runDeliveryLogCost({ devices, androidShare, distributed, outcomeStream, senders, repeat, engine, ceiling: ceilingSettings, profileDir, heraldNodeOptions, data, outDir, out })
  : distributed
  ? runDistributedBench({ devices, androidShare, senders, repeat, engine, ceiling: ceilingSettings, profileDir, heraldNodeOptions, breakdown: values.breakdown, besideLoad: values['beside-load'], outcomeStream, data, outDir, resultName, out })
  : main();
bench.then(
  () => stalledEndpoint?.close(),
  () => undefined,
);
bench.catch((error: unknown) => {
  process.stderr.write(`bench failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
