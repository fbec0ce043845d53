import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { compileConfig } from '../../src/config/load-config.ts';
import type { RawConfig } from '../../src/config/schema.ts';
import { benchBackends, type BenchBackends } from './bench-backends.ts';
import { benchConfig, sessionsText, type EngineSettings } from './bench-config.ts';
import { BenchGateways } from './bench-gateways.ts';
import type { BenchApp, BenchHerald } from './bench-herald.ts';
import { deliveryProblems } from './delivery-check.ts';
import type { BroadcastResult } from './follow-broadcast.ts';
import type { CeilingSettings } from './h2load-ceiling.ts';
import { KafkaPath } from './kafka-path.ts';
import { bothProbes, measuredRun, type RunProbe } from './measured-run.ts';
import { cassandraLoadProbe } from './cassandra-load.ts';
import { benchServices, serviceCpuFigures, serviceCpuProbe, servicePids, servicesQuietProbe, type ServiceCpu } from './service-cpu.ts';
import { floorSettings } from './client-floor.ts';
import { processDeliveries } from './process-deliveries.ts';
import { runTable, runTableLegend, type PushRun } from './push-report.ts';
import { seedInstallations, type Seeded } from './seed-installations.ts';
import { sideBySide, summarize, type SetupSummary } from './side-by-side.ts';
import { BreakdownProbe, breakdownTable, coreSecondRatio, type RunBreakdown } from './distributed-breakdown.ts';
import { machineDescription } from '../machine.ts';
import { writeBenchResult } from '../bench-results.ts';

export interface DistributedBenchSettings {
  devices: number;
  androidShare: number;
  /** Sender processes of the distributed setup. */
  senders: number;
  repeat: number;
  engine: EngineSettings;
  ceiling: CeilingSettings;
  profileDir: string | undefined;
  heraldNodeOptions: string | undefined;
  /** Profile every run (in `profileDir`, else a temporary folder) and break both setups' CPU down by phase over the broadcast. */
  breakdown?: boolean;
  /**
   * Run the embedded setup a second time in each repetition, beside a load
   * that keeps the local Cassandra as busy as the distributed broadcast just
   * did (`CassandraLoad`): how much of the distributed setup's extra CPU per
   * delivery is the machine's, with the backends sharing its cores.
   */
  besideLoad?: boolean;
  /** `true`: the distributed setup produces the outcome stream too (`push.outcomeStream.enabled`, off by default); the embedded one never does. */
  outcomeStream?: boolean;
  data: Record<string, unknown>;
  /** Where the results file goes, and its name. */
  outDir: string;
  resultName: string;
  out: (line: string) => void;
}

/**
 * The same broadcast twice over: on the embedded default (SQLite, in-memory
 * coordination and bus, every role in one process) and on Cassandra, Redis
 * and Kafka with one process per role — one api, one fanout, one scheduler
 * and `senders` senders. Both audiences are seeded the same way, straight into
 * their store. Each run of each setup gets its own ceiling measurement; the
 * repetitions alternate the two setups so the machine's other work weighs on
 * both alike. Every run must deliver exactly once per device with the push
 * record's counters matching the fakes' counts, and the distributed one must
 * have gone through Kafka; otherwise the bench fails without writing results.
 */
export async function runDistributedBench(settings: DistributedBenchSettings): Promise<void> {
  const { devices, androidShare, senders, repeat, out } = settings;
  const app: BenchApp = { id: 'bench', key: randomBytes(12).toString('hex'), masterKey: randomBytes(16).toString('hex') };
  const dataDirs = { embedded: mkdtempSync(join(tmpdir(), 'herald-push-bench-')), distributed: mkdtempSync(join(tmpdir(), 'herald-push-bench-')) };
  const backends: BenchBackends[] = [];
  let gateways: BenchGateways | undefined;
  let kafka: KafkaPath | undefined;
  try {
    const embeddedBackends = await benchBackends('sqlite');
    backends.push(embeddedBackends);
    const distributedBackends = await benchBackends('cassandra');
    backends.push(distributedBackends);
    const pids = await servicePids();
    gateways = await BenchGateways.start({ fcm: androidShare > 0 });
    const parts = { app, gateways, engine: settings.engine };
    const raw = {
      embedded: benchConfig({ ...parts, dataDir: dataDirs.embedded, backends: embeddedBackends }),
      distributed: withOutcomeStream(benchConfig({ ...parts, dataDir: dataDirs.distributed, backends: distributedBackends }), settings.outcomeStream ?? false),
    };
    const config = { embedded: compileConfig(raw.embedded), distributed: compileConfig(raw.distributed) };
    const { push, bus } = config.distributed;
    if (senders > bus.topics.pushTasks) throw new Error(`--senders ${senders} is more than the ${bus.topics.pushTasks} partitions of push.tasks: some senders would have nothing to do`);
    const layout = ['api', 'fanout', 'scheduler', ...Array.from({ length: senders }, () => 'sender')];
    out(
      `push bench, embedded vs distributed: ${devices.toLocaleString('en-US')} devices (${Math.round(androidShare * 100)}% Android); ` +
        `shards ${push.installationShards}, slice ${push.sliceSize}, sender concurrency ${push.senderConcurrency}, gateway sessions ${sessionsText(push.gateways.sessionsPerOrigin)}; ` +
        `distributed: ${layout.length} processes (${senders} senders), push.requests ${bus.topics.pushRequests} and push.tasks ${bus.topics.pushTasks} partitions; ` +
        `${cpus().length} cores, node ${process.version}`,
    );

    const seeded: Record<'embedded' | 'distributed', Seeded> = {
      embedded: await seedInstallations(config.embedded, app.id, { devices, androidShare }),
      distributed: await seedInstallations(config.distributed, app.id, { devices, androidShare }),
    };
    for (const [setup, store] of [['embedded', 'SQLite'], ['distributed', 'Cassandra']] as const) {
      const { ios, android, seconds } = seeded[setup];
      out(
        `seeded ${ios.toLocaleString('en-US')} iOS and ${android.toLocaleString('en-US')} Android installations into ${store} in ${seconds.toFixed(1)} s ` +
          `(${Math.round(devices / seconds).toLocaleString('en-US')}/s), written straight to the store, not through the API`,
      );
    }

    kafka = await KafkaPath.open({ brokers: bus.brokers ?? [], topicPrefix: bus.topicPrefix });
    const runs: Record<'embedded' | 'distributed' | 'besideLoad', PushRun[]> = { embedded: [], distributed: [], besideLoad: [] };
    const floor = floorSettings(devices, push);
    const common = { app, gateways, data: settings.data, devices, ceiling: settings.ceiling, floor, out };
    const profileDir = settings.profileDir ?? (settings.breakdown === true ? mkdtempSync(join(tmpdir(), 'herald-push-profiles-')) : undefined);
    const breakdowns: Record<'embedded' | 'distributed', RunBreakdown[]> = { embedded: [], distributed: [] };
    const heraldOptions = {
      ...(profileDir === undefined ? {} : { profileDir }),
      ...(settings.heraldNodeOptions === undefined ? {} : { nodeOptions: settings.heraldNodeOptions }),
    };
    // Each run starts once the services are done with what the one before wrote (`untilServicesQuiet`).
    const quiet = (label: string, probe?: RunProbe): RunProbe => (probe === undefined ? servicesQuietProbe(pids, out, label) : bothProbes(servicesQuietProbe(pids, out, label), probe));
    for (let index = 0; index < repeat; index += 1) {
      const marks = settings.breakdown === true ? { embedded: new BreakdownProbe(), distributed: new BreakdownProbe(kafkaProbe(kafka, senders, out)) } : null;
      const embeddedLabel = `run ${index + 1}/${repeat} embedded`;
      const embedded = await measuredRun({
        ...common,
        label: embeddedLabel,
        config: raw.embedded,
        herald: heraldOptions,
        probe: quiet(embeddedLabel, marks?.embedded),
      });
      failOnProblems('embedded', embedded.run.broadcast);
      runs.embedded.push(embedded.run);
      reportProfiles(embedded.profiles, out);
      if (marks !== null) breakdowns.embedded.push(marks.embedded.breakdown(embedded.profiles, embedded.run.broadcast.deliveries));

      const distributedLabel = `run ${index + 1}/${repeat} distributed`;
      const distributed = await measuredRun({
        ...common,
        label: distributedLabel,
        config: raw.distributed,
        herald: { ...heraldOptions, layout },
        // The services' CPU first, so that what the Kafka checks read afterwards is not counted.
        probe: quiet(distributedLabel, bothProbes(serviceCpuProbe(pids), marks?.distributed ?? kafkaProbe(kafka, senders, out))),
      });
      failOnProblems('distributed', distributed.run.broadcast);
      runs.distributed.push(distributed.run);
      reportProfiles(distributed.profiles, out);
      if (marks !== null) breakdowns.distributed.push(marks.distributed.breakdown(distributed.profiles, distributed.run.broadcast.deliveries));

      if (settings.besideLoad === true) {
        const cores = cassandraCores(distributed.run);
        const loadedLabel = `run ${index + 1}/${repeat} embedded beside Cassandra at ${cores.toFixed(2)} cores`;
        const loaded = await measuredRun({
          ...common,
          label: loadedLabel,
          config: raw.embedded,
          herald: heraldOptions,
          probe: quiet(loadedLabel, cassandraLoadProbe(pids.cassandra, cores)),
        });
        failOnProblems('embedded beside the Cassandra load', loaded.run.broadcast);
        runs.besideLoad.push(loaded.run);
      }
    }

    const summary = { embedded: summarize(runs.embedded), distributed: summarize(runs.distributed) };
    const services = serviceCpuFigures(runs.distributed).serviceCpuMicrosPerDelivery;
    out('');
    out('embedded, every role in one process:');
    out(runTable(runs.embedded));
    out('distributed, one process per role:');
    out(runTable(runs.distributed));
    out(runTableLegend);
    out('');
    out(sideBySide(summary.embedded, summary.distributed));
    const ratio = coreSecondRatio(summary.embedded, summary.distributed);
    out(ratio.line);
    if (services !== undefined) out(`the services' own CPU over the distributed broadcast, not in Herald's: ${benchServices.map((service) => `${service} ${services[service]} µs`).join(', ')} per delivery`);
    const besideLoad = runs.besideLoad.length === 0 ? null : besideLoadFigures(runs.besideLoad, summary.distributed);
    if (besideLoad !== null) {
      out('');
      out('embedded beside a load keeping Cassandra as busy as the distributed broadcast did (every role in one process):');
      out(runTable(runs.besideLoad));
      out(besideLoad.line);
    }
    for (const [index, embedded] of breakdowns.embedded.entries()) {
      const distributed = breakdowns.distributed[index];
      if (distributed === undefined) continue;
      out('');
      out(`run ${index + 1}/${repeat}, from the CPU profiles (sampled; the profiler's own cost is in both setups):`);
      out(breakdownTable(embedded, distributed));
    }

    const report = {
      bench: 'push',
      setups: {
        embedded: 'SQLite, in-memory coordination and bus; every role in one process',
        distributed: `Cassandra, Redis and Kafka; ${summary.distributed.processes}${settings.outcomeStream === true ? '; outcome stream on' : ''}`,
      },
      date: new Date().toISOString(),
      machine: machineDescription(),
      note:
        'Herald, the fakes (each in its own process), h2load and the bench share this machine with other work; compare the ratio to the ceiling measured beside each run. ' +
        'Installations were seeded straight into each store, not through the API. Herald CPU is summed over all of a setup\'s processes from /proc/<pid>/stat; ' +
        'deliveries per core-second divide the deliveries by it, from the request until the push record read done',
      devices,
      seeded,
      settings: {
        installationShards: push.installationShards,
        sliceSize: push.sliceSize,
        senderConcurrency: push.senderConcurrency,
        sessionsPerOrigin: push.gateways.sessionsPerOrigin,
        senders,
        layout,
        topics: bus.topics,
        heraldNodeOptions: settings.heraldNodeOptions ?? null,
        ceiling: settings.ceiling,
        floor,
      },
      data: settings.data,
      median: summary,
      deliveriesPerCoreSecondRatio: ratio.ratio,
      ...(services === undefined ? {} : { serviceCpuMicrosPerDelivery: services }),
      ...(besideLoad === null ? {} : { besideLoad: { median: besideLoad.summary, deliveriesPerCoreSecondRatio: besideLoad.ratio } }),
      ...(settings.breakdown === true ? { profiled: true, breakdowns } : {}),
      runs,
    };
    writeBenchResult(settings.outDir, settings.resultName, report, out);
  } finally {
    await kafka?.close();
    await gateways?.close();
    for (const backend of backends) await backend.drop();
    rmSync(dataDirs.embedded, { recursive: true, force: true });
    rmSync(dataDirs.distributed, { recursive: true, force: true });
  }
}

/** Cassandra's CPU over a distributed broadcast, in cores: from the request until the record read done. */
function cassandraCores(run: PushRun): number {
  const used = run.checks?.serviceCpuSeconds as ServiceCpu | undefined;
  const { recordDoneMs, lastDeliveryMs } = run.broadcast;
  const seconds = (recordDoneMs ?? lastDeliveryMs) / 1000;
  if (used === undefined || seconds <= 0) throw new Error("the distributed run did not measure Cassandra's CPU");
  return used.cassandra / seconds;
}

/** The embedded runs beside the Cassandra load: their medians, and the distributed setup's deliveries per core-second over theirs. */
function besideLoadFigures(runs: readonly PushRun[], distributed: SetupSummary): { summary: SetupSummary; ratio: number | null; line: string } {
  const summary = summarize(runs);
  const loads = runs.map((run) => (run.checks?.cassandraLoad as { cassandraCores: number } | undefined)?.cassandraCores ?? 0);
  const { ratio } = coreSecondRatio(summary, distributed);
  const line =
    `deliveries per core-second, distributed to embedded beside the Cassandra load (Cassandra at ${loads.map((cores) => cores.toFixed(2)).join(', ')} cores): ` +
    `${ratio === null ? '-' : ratio.toFixed(2)}; the embedded setup beside it: ${summary.deliveriesPerCoreSecond?.toLocaleString('en-US') ?? '-'} deliveries per core-second`;
  return { summary, ratio, line };
}

/** The config with the outcome stream on or off. */
export function withOutcomeStream(config: RawConfig, enabled: boolean): RawConfig {
  return { ...config, push: { ...config.push, outcomeStream: { ...config.push?.outcomeStream, enabled } } };
}

/**
 * The distributed run's own checks: the consumer groups settled before the
 * broadcast; after it, one message went onto push.requests and tasks onto
 * push.tasks, both groups committed all of them, and the deliveries were
 * made by the sender processes — their own counters add up to the fakes' count,
 * and no other process delivered anything.
 */
export function kafkaProbe(kafka: KafkaPath, senders: number, out: (line: string) => void): RunProbe {
  return {
    beforeBroadcast: (_herald: BenchHerald) => kafka.beforeBroadcast(senders),
    afterBroadcast: async (herald: BenchHerald, broadcast: BroadcastResult) => {
      const passage = await kafka.afterBroadcast();
      const processes = await processDeliveries(herald.processes);
      const problems: string[] = [];
      const bySenders = processes.filter((process) => process.role === 'sender');
      const senderDeliveries = bySenders.reduce((sum, process) => sum + process.delivered, 0);
      if (senderDeliveries !== broadcast.deliveries) problems.push(`the sender processes count ${senderDeliveries} deliveries, the fakes ${broadcast.deliveries}`);
      for (const process of processes) {
        if (process.role !== 'sender' && process.delivered + process.notDelivered > 0) problems.push(`the ${process.role} process sent ${process.delivered + process.notDelivered} notifications`);
        if (process.notDelivered > 0) problems.push(`the ${process.role} process counts ${process.notDelivered} deliveries that did not succeed`);
        const accepted = process.role === 'api' ? 1 : 0;
        if (process.accepted !== accepted) problems.push(`the ${process.role} process accepted ${process.accepted} pushes, not ${accepted}`);
      }
      if (problems.length > 0) throw new Error(`the distributed run did not go as it should:\n  ${problems.join('\n  ')}`);
      out(
        `  through Kafka: ${passage.requestMessages} message on push.requests, ${passage.taskMessages.toLocaleString('en-US')} on push.tasks, all committed; ` +
          `the senders delivered ${bySenders.map((process) => process.delivered.toLocaleString('en-US')).join(' + ')}` +
          (bySenders.some((process) => process.delivered === 0) ? ' (a sender had nothing to do: its partitions got no task)' : ''),
      );
      return { kafka: passage, processes };
    },
  };
}

function failOnProblems(setup: string, broadcast: BroadcastResult): void {
  const problems = deliveryProblems(broadcast);
  if (problems.length > 0) throw new Error(`the ${setup} run's deliveries cannot be trusted:\n  ${problems.join('\n  ')}`);
}

function reportProfiles(profiles: readonly string[], out: (line: string) => void): void {
  for (const profile of profiles) out(`Herald CPU profile: ${profile}`);
}

