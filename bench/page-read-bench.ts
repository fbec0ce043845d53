/**
 * `npm run bench:pages [-- --devices 64000 --rounds 8]`
 *
 * What reading installations costs a sender, store by store, in one process:
 * the same audience seeded into SQLite (a fresh data directory) and into the
 * local Cassandra (a fresh keyspace, dropped afterwards), then every shard
 * read a page of 1,000 at a time through the store's `scanShard`, as a
 * sender's slice reads it, `--rounds` times over, alternating the stores.
 * Prints the CPU a row (user and system, from `process.cpuUsage`) and the
 * rows a second of each round, and the medians; Cassandra's own CPU is not
 * counted. Results go to bench/results/page-reads.json.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { userClassDescriptor } from '../src/accounts/user-class.ts';
import { compileConfig } from '../src/config/load-config.ts';
import { systemClock } from '../src/core/clock.ts';
import { silentLogger } from '../src/core/logger.ts';
import type { Store } from '../src/core/ports/object-store.ts';
import { openStore } from '../src/runtime/open-store.ts';
import { count } from './bench-args.ts';
import { benchResultsDir, writeBenchResult } from './bench-results.ts';
import { machineDescription } from './machine.ts';
import { benchBackends, type BenchBackends } from './push/bench-backends.ts';
import { median } from './push/push-report.ts';
import { seedInstallations } from './push/seed-installations.ts';

const { values } = parseArgs({
  options: {
    devices: { type: 'string', default: '64000' },
    rounds: { type: 'string', default: '8' },
  },
});
const devices = count('devices', values.devices, 1000);
const rounds = count('rounds', values.rounds, 1);
const pageSize = 1000;
const stores = ['sqlite', 'cassandra'] as const;
type StoreKind = (typeof stores)[number];
const appId = 'bench';
const out = (line: string): boolean => process.stdout.write(`${line}\n`);

interface Round {
  rows: number;
  cpuMicrosPerRow: number;
  rowsPerSecond: number;
}

async function main(): Promise<void> {
  const opened: { kind: StoreKind; store: Store; backends: BenchBackends; dataDir: string; shards: number }[] = [];
  try {
    for (const kind of stores) {
      const backends = await benchBackends(kind);
      const dataDir = mkdtempSync(join(tmpdir(), 'herald-page-bench-'));
      const config = compileConfig({ dataDir, store: backends.store });
      const seeded = await seedInstallations(config, appId, { devices, androidShare: 0 });
      out(`${kind}: seeded ${devices.toLocaleString('en-US')} iOS installations in ${seeded.seconds.toFixed(1)} s`);
      const store = await openStore(config.store, {
        dataDir,
        classes: { _User: userClassDescriptor },
        clock: systemClock,
        logger: silentLogger(),
        installationShards: config.push.installationShards,
      });
      opened.push({ kind, store, backends, dataDir, shards: config.push.installationShards });
    }
    const results: Record<StoreKind, Round[]> = { sqlite: [], cassandra: [] };
    for (let round = 0; round < rounds; round += 1) {
      for (const { kind, store, shards } of opened) {
        const measured = await readAll(store, shards);
        results[kind].push(measured);
        out(`round ${round + 1}/${rounds} ${kind}: ${measured.rows.toLocaleString('en-US')} rows, ${measured.cpuMicrosPerRow} µs of CPU a row, ${measured.rowsPerSecond.toLocaleString('en-US')} rows/s`);
      }
    }
    const summary = Object.fromEntries(
      stores.map((kind) => [kind, { cpuMicrosPerRow: hundredths(median(results[kind].map((r) => r.cpuMicrosPerRow))), rowsPerSecond: Math.round(median(results[kind].map((r) => r.rowsPerSecond))) }]),
    ) as Record<StoreKind, { cpuMicrosPerRow: number; rowsPerSecond: number }>;
    const difference = hundredths(summary.cassandra.cpuMicrosPerRow - summary.sqlite.cpuMicrosPerRow);
    out('');
    out(`medians over ${rounds} rounds, pages of ${pageSize}: SQLite ${summary.sqlite.cpuMicrosPerRow} µs a row, Cassandra ${summary.cassandra.cpuMicrosPerRow} µs a row (${difference >= 0 ? '+' : ''}${difference} µs, this process's CPU alone)`);
    const report = {
      bench: 'page-reads',
      date: new Date().toISOString(),
      machine: machineDescription(),
      note: "The CPU of this process alone (the store's client, its rows and their JSON), not Cassandra's; both stores in one process, rounds alternating",
      devices,
      pageSize,
      rounds: results,
      median: summary,
      cassandraMinusSqliteMicrosPerRow: difference,
    };
    writeBenchResult(benchResultsDir, 'page-reads.json', report, out);
  } finally {
    for (const { store, backends, dataDir } of opened) {
      await store.close();
      await backends.drop();
      rmSync(dataDir, { recursive: true, force: true });
    }
  }
}

/** Every shard read a page at a time, as a sender's slices read it. */
async function readAll(store: Store, shards: number): Promise<Round> {
  const cpu = process.cpuUsage();
  const started = performance.now();
  let rows = 0;
  for (let shard = 0; shard < shards; shard += 1) {
    let after: string | null = null;
    do {
      const page = await store.installations.scanShard(appId, { shard, index: { kind: 'all' }, after, limit: pageSize });
      rows += page.installations.length;
      after = page.next;
    } while (after !== null);
  }
  const used = process.cpuUsage(cpu);
  const seconds = (performance.now() - started) / 1000;
  return { rows, cpuMicrosPerRow: hundredths((used.user + used.system) / Math.max(1, rows)), rowsPerSecond: Math.round(rows / seconds) };
}

function hundredths(value: number): number {
  return Math.round(value * 100) / 100;
}

main().catch((error: unknown) => {
  process.stderr.write(`bench failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
