/**
 * `npm run bench:api [-- --store sqlite|cassandra|sqlite,cassandra] [--duration 10] [--connections 32]`
 *
 * Starts the service as its own process for each store (`cassandra` means
 * Cassandra for storage and Redis for coordination, on the local services),
 * drives it from this process with autocannon over loopback, and reports
 * requests/second and p50/p99 latency for GET /1.1/users/me, login,
 * registration, and an installation's first save (new) and later saves
 * (re-save), with the ratio of new to re-saved installations per second in
 * the same run. Each store's results are written to
 * bench/results/api-<store>.json; the printed table sets every store's
 * latest results side by side.
 */
import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { benchStores, startBenchServer, type BenchStore } from './api/bench-server.ts';
import { createScenario, resaveScenario, runScenarios, type ScenarioResult } from './api/scenarios.ts';
import { benchResultsDir, writeBenchResult } from './bench-results.ts';
import { sideBySide, type StoreReport } from './api/side-by-side.ts';

const { values } = parseArgs({
  options: {
    store: { type: 'string', default: 'sqlite' },
    duration: { type: 'string', default: '10' },
    connections: { type: 'string', default: '32' },
  },
});
const stores = (values.store ?? 'sqlite').split(',').map((name) => name.trim());
const unknown = stores.filter((name) => !(benchStores as readonly string[]).includes(name));
if (unknown.length > 0) {
  process.stderr.write(`bench: unknown store "${unknown.join(', ')}"; choose from: ${benchStores.join(', ')}\n`);
  process.exit(2);
}
const load = { duration: Number(values.duration), connections: Number(values.connections) };
const resultName = (store: string) => `api-${store}.json`;
const resultFile = (store: string) => join(benchResultsDir, resultName(store));

async function benchStore(store: BenchStore): Promise<StoreReport> {
  const app = { id: 'bench', key: randomBytes(12).toString('hex'), masterKey: randomBytes(16).toString('hex') };
  const server = await startBenchServer(store, app);
  try {
    const results = await runScenarios(server.port, app, load);
    const newToResave = succeededPerSecond(results, createScenario) / succeededPerSecond(results, resaveScenario);
    process.stdout.write(`${store}: new installations/s ÷ re-saves/s in this run = ${newToResave.toFixed(2)}\n`);
    const report = {
      store,
      node: process.version,
      cpus: cpus().length,
      cpuModel: cpus()[0]?.model,
      date: new Date().toISOString(),
      note:
        store === 'cassandra'
          ? 'Cassandra (one local node, 1 GiB heap) and Redis share this machine with the server and the load generator'
          : 'server and load generator share this machine',
      duration: load.duration,
      connections: load.connections,
      results,
      /** New installations per second over re-saves per second, requests that failed left out. */
      newToResave: Number(newToResave.toFixed(3)),
    };
    writeBenchResult(benchResultsDir, resultName(store), report, (line) => process.stdout.write(`${store}: ${line}\n`));
    return report;
  } finally {
    await server.close();
  }
}

/** Requests of a scenario answered 2xx, per second. */
function succeededPerSecond(results: readonly ScenarioResult[], scenario: string): number {
  const result = results.find((candidate) => candidate.scenario === scenario);
  if (result === undefined) throw new Error(`no result for ${scenario}`);
  return (result.requests - result.non2xx - result.errors) / result.durationSeconds;
}

async function main(): Promise<void> {
  const fresh = new Map<string, StoreReport>();
  for (const store of stores as BenchStore[]) fresh.set(store, await benchStore(store));
  // Stores not run now are shown from their last results, so one command gives the comparison.
  const reports = benchStores.flatMap((store): StoreReport[] => {
    const report = fresh.get(store);
    if (report) return [report];
    return existsSync(resultFile(store)) ? [JSON.parse(readFileSync(resultFile(store), 'utf8')) as StoreReport] : [];
  });
  process.stdout.write(`duration=${load.duration}s connections=${load.connections} argon2id (m=19456 KiB, t=2, p=1) bounds login and registration\n`);
  process.stdout.write(`${sideBySide(reports)}\n`);
}

main().catch((error: unknown) => {
  process.stderr.write(`bench failed: ${String(error)}\n`);
  process.exit(1);
});
