import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { compileConfig } from '../../src/config/load-config.ts';
import type { RawConfig } from '../../src/config/schema.ts';
import { benchBackends, type BenchBackends } from './bench-backends.ts';
import { benchConfig, type EngineSettings } from './bench-config.ts';
import { BenchGateways } from './bench-gateways.ts';
import type { BenchApp, BenchHerald } from './bench-herald.ts';
import { floorSettings } from './client-floor.ts';
import { deliveryProblems } from './delivery-check.ts';
import { kafkaProbe, withOutcomeStream } from './distributed-bench.ts';
import type { BroadcastResult } from './follow-broadcast.ts';
import { benchServices, serviceCpuFigures, serviceCpuProbe, servicePids, servicesQuietProbe, type ServiceCpu } from './service-cpu.ts';
import type { CeilingSettings } from './h2load-ceiling.ts';
import { KafkaPath } from './kafka-path.ts';
import { bothProbes, measuredRun, type RunProbe } from './measured-run.ts';
import { threadKinds, type ThreadKind } from './process-stats.ts';
import { gcFigures, gcProbe } from './gc-probe.ts';
import { runTable, runTableLegend, type PushRun } from './push-report.ts';
import { seedInstallations, type Seeded } from './seed-installations.ts';
import { median } from './push-report.ts';
import { machineDescription } from '../machine.ts';
import { nodeOptionsSuffix, writeBenchResult } from '../bench-results.ts';

/** The issue's limits: the log on keeps ≥ 0.9× the deliveries/s and ≤ 1.15× the CPU per delivery of the same run with it off. */
export const deliveryLogLimits = { rate: 0.9, cpu: 1.15 } as const;

export interface DeliveryLogCostSettings {
  devices: number;
  androidShare: number;
  /** Also on Cassandra, Redis and Kafka, one process per role. */
  distributed: boolean;
  /** The runs with the log on produce the outcome stream too (distributed only; off by default, as in Herald's config). */
  outcomeStream: boolean;
  senders: number;
  repeat: number;
  engine: EngineSettings;
  ceiling: CeilingSettings;
  profileDir: string | undefined;
  heraldNodeOptions: string | undefined;
  data: Record<string, unknown>;
  outDir: string;
  out: (line: string) => void;
}

type Setup = 'embedded' | 'distributed';
type Mode = 'off' | 'on';

/** One setup's runs with the log off and on, and the figures compared. */
export interface CostSummary {
  processes: string;
  off: ModeFigures;
  on: ModeFigures;
  /** on ÷ off: deliveries/s (≥ 0.9 wanted) and CPU per delivery to the record's done (≤ 1.15 wanted). */
  ratios: { deliveriesPerSecond: number; cpuPerDelivery: number; cpuPerDeliveryToLast: number; peakRss: number; mainThreadCpuPerDelivery: number };
  /** on ÷ off of each pair (the n-th run on against the n-th off), of the whole processes' CPU and of their main threads' alone: how far single pairs spread. */
  pairRatios: { cpuPerDelivery: number[]; mainThreadCpuPerDelivery: number[] };
  limitsMet: boolean;
}

interface ModeFigures {
  deliveriesPerSecond: number;
  /** Herald's CPU (summed over its processes) from the request to the push record's done, over the deliveries, µs. */
  cpuMicrosPerDelivery: number;
  /** The same to the last delivery, µs. */
  cpuMicrosPerDeliveryToLast: number;
  /** The main threads' CPU alone (JavaScript's thread of each process) to the record's done, over the deliveries, µs. */
  mainThreadCpuMicrosPerDelivery: number;
  /** The same by kind of thread (main, V8's platform threads, libuv's pool, others), µs; medians. */
  threadCpuMicrosPerDelivery: Record<ThreadKind, number>;
  peakRssMb: number;
  /** With Cassandra, Redis and Kafka: each one's own CPU over the broadcast (to the record's done), over the deliveries, µs; medians. */
  serviceCpuMicrosPerDelivery?: ServiceCpu;
  /** The embedded process's garbage collections over a broadcast (from its /metrics), medians: young-generation ones, their main-thread pause, full ones. */
  gc?: { minorCollections: number; minorPauseMicrosPerDelivery: number; majorCollections: number };
  /** Entries GET /1.1/notifications/<id>/deliveries listed after each run. */
  logEntries: number[];
}

/**
 * `bench:push --delivery-log-cost`: the same broadcast with the delivery log
 * on (default settings: every success kept) and off (`push.deliveryLog.enabled:
 * false`, and no outcome stream), in the same run, the two alternating
 * (off, on, then on, off, …) so the machine's other work weighs on both; on
 * the embedded default and, with `--distributed`, on Cassandra, Redis and
 * Kafka. It prints each setup's deliveries/s, CPU per delivery and peak RSS
 * off and on with their ratios against the issue's limits, and checks after
 * each run with the log on that GET /1.1/notifications/<id>/deliveries
 * lists exactly one entry per device (none with it off). Results go to
 * bench/results/push-<setup>-delivery-log[-<devices>].json.
 */
export async function runDeliveryLogCost(settings: DeliveryLogCostSettings): Promise<void> {
  const { devices, androidShare, repeat, out } = settings;
  const setups: Setup[] = settings.distributed ? ['embedded', 'distributed'] : ['embedded'];
  const app: BenchApp = { id: 'bench', key: randomBytes(12).toString('hex'), masterKey: randomBytes(16).toString('hex') };
  const dataDirs: string[] = [];
  const backends: BenchBackends[] = [];
  let gateways: BenchGateways | undefined;
  let kafka: KafkaPath | undefined;
  try {
    gateways = await BenchGateways.start({ fcm: androidShare > 0 });
    const raw = {} as Record<Setup, Record<Mode, RawConfig>>;
    const seeded = {} as Record<Setup, Seeded>;
    for (const setup of setups) {
      const dataDir = mkdtempSync(join(tmpdir(), 'herald-push-bench-'));
      dataDirs.push(dataDir);
      const backend = await benchBackends(setup === 'embedded' ? 'sqlite' : 'cassandra');
      backends.push(backend);
      const on = withOutcomeStream(benchConfig({ app, gateways, engine: settings.engine, dataDir, backends: backend }), setup === 'distributed' && settings.outcomeStream);
      raw[setup] = { on, off: { ...on, push: { ...on.push, deliveryLog: { enabled: false }, outcomeStream: { enabled: false } } } };
      seeded[setup] = await seedInstallations(compileConfig(on), app.id, { devices, androidShare });
      out(`${setup}: seeded ${devices.toLocaleString('en-US')} installations in ${seeded[setup].seconds.toFixed(1)} s`);
    }
    const distributedConfig = settings.distributed ? compileConfig(raw.distributed.on) : null;
    const layout = ['api', 'fanout', 'scheduler', ...Array.from({ length: settings.senders }, () => 'sender')];
    if (distributedConfig !== null) kafka = await KafkaPath.open({ brokers: distributedConfig.bus.brokers ?? [], topicPrefix: distributedConfig.bus.topicPrefix });
    const pids = settings.distributed ? await servicePids() : null;
    const push = compileConfig(raw.embedded.on).push;
    out(
      `delivery log cost: ${devices.toLocaleString('en-US')} devices, log on (successes all${settings.outcomeStream ? '; with Kafka the outcome stream on too' : ''}) vs off, ${repeat} pair(s) per setup; ` +
        `slice ${push.sliceSize}, sender concurrency ${push.senderConcurrency}; ${cpus().length} cores, node ${process.version}`,
    );

    const runs = Object.fromEntries(setups.map((setup) => [setup, { off: [] as PushRun[], on: [] as PushRun[] }])) as Record<Setup, Record<Mode, PushRun[]>>;
    const entries = Object.fromEntries(setups.map((setup) => [setup, { off: [] as number[], on: [] as number[] }])) as Record<Setup, Record<Mode, number[]>>;
    const floor = floorSettings(devices, push);
    for (let index = 0; index < repeat; index += 1) {
      const order: Mode[] = index % 2 === 0 ? ['off', 'on'] : ['on', 'off'];
      for (const setup of setups) {
        for (const mode of order) {
          const logProbe = deliveryLogProbe(app, mode, (count) => entries[setup][mode].push(count));
          const label = `run ${index + 1}/${repeat} ${setup}, log ${mode}`;
          const measured =
            setup === 'distributed' && kafka !== undefined && pids !== null ? bothProbes(serviceCpuProbe(pids), bothProbes(kafkaProbe(kafka, settings.senders, out), logProbe)) : bothProbes(gcProbe(), logProbe);
          // Every run starts once the services are done with what the one before wrote, the embedded runs too.
          const probe = pids === null ? measured : bothProbes(servicesQuietProbe(pids, out, label), measured);
          const { run, profiles } = await measuredRun({
            label,
            config: raw[setup][mode],
            app,
            gateways,
            data: settings.data,
            devices,
            ceiling: settings.ceiling,
            floor,
            herald: {
              ...(settings.profileDir === undefined ? {} : { profileDir: join(settings.profileDir, `${setup}-${mode}`) }),
              ...(settings.heraldNodeOptions === undefined ? {} : { nodeOptions: settings.heraldNodeOptions }),
              ...(setup === 'distributed' ? { layout } : {}),
            },
            probe,
            out,
          });
          const problems = deliveryProblems(run.broadcast);
          if (problems.length > 0) throw new Error(`the ${setup} run with the log ${mode} cannot be trusted:\n  ${problems.join('\n  ')}`);
          runs[setup][mode].push(run);
          for (const profile of profiles) out(`Herald CPU profile: ${profile}`);
        }
      }
    }

    const summaries = {} as Record<Setup, CostSummary>;
    for (const setup of setups) {
      out('');
      for (const mode of ['off', 'on'] as const) {
        out(`${setup}, delivery log ${mode}:`);
        out(runTable(runs[setup][mode]));
      }
      summaries[setup] = summarize(setup === 'embedded' ? 'all' : layout.join(', '), runs[setup], entries[setup]);
    }
    out(runTableLegend);
    out('');
    for (const setup of setups) out(costLines(setup, summaries[setup], devices));

    for (const setup of setups) {
      const streamed = setup === 'distributed' && settings.outcomeStream;
      const resultName = `push-${setup === 'embedded' ? 'sqlite' : 'distributed'}-delivery-log${streamed ? '-outcome-stream' : ''}${androidShare > 0 ? '-android' : ''}${devices === 100_000 ? '' : `-${devices}`}${nodeOptionsSuffix(settings.heraldNodeOptions)}.json`;
      const report = {
        bench: 'push --delivery-log-cost',
        setup: setup === 'embedded' ? 'SQLite, in-memory coordination and bus; every role in one process' : `Cassandra, Redis and Kafka; ${layout.join(', ')}`,
        date: new Date().toISOString(),
        machine: machineDescription(),
        note:
          `The same broadcast with the delivery log on (default settings, every success kept; ${streamed ? 'the outcome stream on too' : 'no outcome stream, as by default'}) and off (push.deliveryLog.enabled false, push.outcomeStream.enabled false), alternating in one run. ` +
          "Herald's CPU is summed over its processes from /proc/<pid>/stat; Cassandra's, Redis's and Kafka's own CPU is not counted in it, and is given apart (summary serviceCpuMicrosPerDelivery, each run's checks.serviceCpuSeconds). The machine is shared with other work",
        devices,
        heraldNodeOptions: settings.heraldNodeOptions ?? null,
        seeded: seeded[setup],
        limits: deliveryLogLimits,
        summary: summaries[setup],
        runs: runs[setup],
      };
      writeBenchResult(settings.outDir, resultName, report, out);
    }
  } finally {
    await kafka?.close();
    await gateways?.close();
    for (const backend of backends) await backend.drop();
    for (const dataDir of dataDirs) rmSync(dataDir, { recursive: true, force: true });
  }
}

function summarize(processes: string, runs: Record<Mode, PushRun[]>, entries: Record<Mode, number[]>): CostSummary {
  const figures = (mode: Mode): ModeFigures => {
    const broadcasts = runs[mode].map((run) => run.broadcast);
    return {
      deliveriesPerSecond: Math.round(median(broadcasts.map((b) => b.deliveriesPerSecond))),
      cpuMicrosPerDelivery: tenths(median(broadcasts.map(processMicros))),
      cpuMicrosPerDeliveryToLast: tenths(median(broadcasts.map((b) => b.cpuMicrosPerDelivery))),
      mainThreadCpuMicrosPerDelivery: tenths(median(broadcasts.map(mainThreadMicros))),
      threadCpuMicrosPerDelivery: Object.fromEntries(
        threadKinds.map((kind) => [kind, tenths(median(broadcasts.map((b) => ((b.threadCpuSecondsToDone?.[kind] ?? Number.NaN) * 1e6) / Math.max(1, b.deliveries))))]),
      ) as Record<ThreadKind, number>,
      peakRssMb: Math.max(...broadcasts.map((b) => b.peakRssMb)),
      ...serviceCpuFigures(runs[mode]),
      ...gcFigures(runs[mode]),
      logEntries: entries[mode],
    };
  };
  const off = figures('off');
  const on = figures('on');
  const ratios = {
    deliveriesPerSecond: hundredths(on.deliveriesPerSecond / off.deliveriesPerSecond),
    cpuPerDelivery: hundredths(on.cpuMicrosPerDelivery / off.cpuMicrosPerDelivery),
    cpuPerDeliveryToLast: hundredths(on.cpuMicrosPerDeliveryToLast / off.cpuMicrosPerDeliveryToLast),
    peakRss: hundredths(on.peakRssMb / off.peakRssMb),
    mainThreadCpuPerDelivery: hundredths(on.mainThreadCpuMicrosPerDelivery / off.mainThreadCpuMicrosPerDelivery),
  };
  const perPair = (micros: (b: BroadcastResult) => number): number[] =>
    runs.on.map((run, index) => {
      const before = runs.off[index];
      return before === undefined ? Number.NaN : hundredths(micros(run.broadcast) / micros(before.broadcast));
    });
  const pairRatios = { cpuPerDelivery: perPair(processMicros), mainThreadCpuPerDelivery: perPair(mainThreadMicros) };
  return { processes, off, on, ratios, pairRatios, limitsMet: ratios.deliveriesPerSecond >= deliveryLogLimits.rate && ratios.cpuPerDelivery <= deliveryLogLimits.cpu };
}

/** Herald's CPU per delivery to the record's done (to the last delivery when the record never read done), µs. */
function processMicros(b: BroadcastResult): number {
  return ((b.heraldCpuSecondsToDone ?? b.heraldCpuSeconds) * 1e6) / Math.max(1, b.deliveries);
}

function mainThreadMicros(b: BroadcastResult): number {
  return ((b.mainThreadCpuSecondsToDone ?? Number.NaN) * 1e6) / Math.max(1, b.deliveries);
}

function costLines(setup: Setup, summary: CostSummary, devices: number): string {
  const { off, on, ratios } = summary;
  const mark = (ok: boolean): string => (ok ? 'met' : 'NOT met');
  return [
    `${setup} (${summary.processes}), ${devices.toLocaleString('en-US')} devices, delivery log off → on:`,
    `  deliveries/s ${off.deliveriesPerSecond.toLocaleString('en-US')} → ${on.deliveriesPerSecond.toLocaleString('en-US')}: ${ratios.deliveriesPerSecond.toFixed(2)}× (limit ≥ ${deliveryLogLimits.rate}×) ${mark(ratios.deliveriesPerSecond >= deliveryLogLimits.rate)}`,
    `  Herald CPU per delivery, to the record's done: ${off.cpuMicrosPerDelivery} → ${on.cpuMicrosPerDelivery} µs: ${ratios.cpuPerDelivery.toFixed(2)}× (limit ≤ ${deliveryLogLimits.cpu}×) ${mark(ratios.cpuPerDelivery <= deliveryLogLimits.cpu)}` +
      `; to the last delivery ${off.cpuMicrosPerDeliveryToLast} → ${on.cpuMicrosPerDeliveryToLast} µs (${ratios.cpuPerDeliveryToLast.toFixed(2)}×)`,
    `  main threads' CPU per delivery (without helper threads), to the record's done: ${off.mainThreadCpuMicrosPerDelivery} → ${on.mainThreadCpuMicrosPerDelivery} µs: ${ratios.mainThreadCpuPerDelivery.toFixed(2)}×`,
    `  CPU per delivery by thread, to the record's done: ${threadKinds.map((kind) => `${kind} ${off.threadCpuMicrosPerDelivery[kind]} → ${on.threadCpuMicrosPerDelivery[kind]} µs`).join(', ')} (gc: V8's platform threads, libuv: its pool)`,
    ...(off.gc === undefined || on.gc === undefined
      ? []
      : [
          `  garbage collections a broadcast: young ${off.gc.minorCollections} → ${on.gc.minorCollections} (pauses ${off.gc.minorPauseMicrosPerDelivery} → ${on.gc.minorPauseMicrosPerDelivery} µs per delivery), full ${off.gc.majorCollections} → ${on.gc.majorCollections}`,
        ]),
    `  each pair on ÷ off: whole processes ${summary.pairRatios.cpuPerDelivery.map((ratio) => ratio.toFixed(2)).join(', ')}; main threads ${summary.pairRatios.mainThreadCpuPerDelivery.map((ratio) => ratio.toFixed(2)).join(', ')}`,
    ...(off.serviceCpuMicrosPerDelivery === undefined || on.serviceCpuMicrosPerDelivery === undefined
      ? []
      : [`  the services' own CPU per delivery (not in Herald's): ${benchServices.map((service) => `${service} ${off.serviceCpuMicrosPerDelivery?.[service]} → ${on.serviceCpuMicrosPerDelivery?.[service]} µs`).join(', ')}`]),
    `  peak RSS ${off.peakRssMb} → ${on.peakRssMb} MB (${ratios.peakRss.toFixed(2)}×)`,
    `  delivery log entries listed after each run: off ${off.logEntries.join(', ')}; on ${on.logEntries.join(', ')}`,
  ].join('\n');
}

/** After a run, counts the entries GET /1.1/notifications/<id>/deliveries lists: every device's with the log on, none off. */
function deliveryLogProbe(app: BenchApp, mode: Mode, counted: (entries: number) => void): RunProbe {
  return {
    beforeBroadcast: () => Promise.resolve(),
    afterBroadcast: async (herald: BenchHerald, broadcast: BroadcastResult) => {
      const entries = await countEntries(herald.port, app, broadcast.pushId);
      counted(entries);
      const wanted = mode === 'on' ? broadcast.expected : 0;
      if (entries !== wanted) throw new Error(`the delivery log lists ${entries} entries for a push to ${broadcast.expected} devices with the log ${mode}; ${wanted} expected`);
      return { deliveryLogEntries: entries };
    },
  };
}

async function countEntries(port: number, app: BenchApp, pushId: string): Promise<number> {
  const headers = { 'X-SVC-Id': app.id, 'X-SVC-Key': `${app.masterKey},master` };
  let count = 0;
  let cursor: string | null = null;
  do {
    const query = new URLSearchParams({ limit: '1000', ...(cursor === null ? {} : { cursor }) });
    const response = await fetch(`http://127.0.0.1:${port}/1.1/notifications/${pushId}/deliveries?${query.toString()}`, { headers });
    const body = (await response.json()) as { results?: unknown[]; nextCursor?: string | null };
    if (response.status !== 200 || !Array.isArray(body.results)) throw new Error(`GET deliveries answered ${response.status}: ${JSON.stringify(body).slice(0, 300)}`);
    count += body.results.length;
    cursor = body.nextCursor ?? null;
  } while (cursor !== null);
  return count;
}

function hundredths(value: number): number {
  return Math.round(value * 100) / 100;
}

function tenths(value: number): number {
  return Math.round(value * 10) / 10;
}
