/**
 * `node bench/push/delivery-log-storage.ts [--deliveries 1000000] [--store sqlite|cassandra|both] [--slice 1000]`
 *
 * What the delivery log stores per million deliveries, on each store, with
 * delivered devices kept in full (`successes: all`), sampled (1%) and off.
 * It writes the slices a push of that many devices makes (default slices of
 * 1,000: 97% delivered through APNs with an `apns-id` each, 1.5% Unregistered,
 * 1% BadDeviceToken, 0.5% failed after three attempts) straight through the
 * DeliveryLogWriter's rows into a fresh store, and measures:
 *
 * - SQLite: the database file's growth, the WAL checkpointed, over an empty
 *   store's;
 * - Cassandra: the live SSTables of the three delivery log tables
 *   (`system_views.disk_usage`, LZ4-compressed as Herald creates them) once
 *   the memtables are flushed (the tables' `memtable_flush_period_in_ms` is
 *   set on the bench's own keyspace, so no JMX is needed), and the bytes of
 *   the values the writes carried.
 *
 * Results go to bench/results/push-delivery-log-storage[-<store>].json.
 */
import { randomUUID } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { parseArgs } from 'node:util';
import type { SuccessMode } from '../../src/config/delivery-log-schema.ts';
import { systemClock } from '../../src/core/clock.ts';
import { newObjectId } from '../../src/core/ids.ts';
import type { LoggedSlice } from '../../src/core/ports/delivery-log-store.ts';
import type { DeliveryLogPolicy } from '../../src/push/delivery-log/delivery-log-policy.ts';
import { loggedSlice } from '../../src/push/delivery-log/delivery-log-writer.ts';
import type { DeliveryEvent } from '../../src/push/outcomes/delivery-event.ts';
import { CassandraStore } from '../../src/store/cassandra/cassandra-store.ts';
import { SqliteStore } from '../../src/store/sqlite/sqlite-store.ts';
import { connectAdmin, dropKeyspace } from '../../test/store/cassandra-test-keyspace.ts';
import { serviceEndpoints } from '../../test/support/service-endpoints.ts';
import { servicesUp } from '../../scripts/services/services.ts';
import { count, fail } from '../bench-args.ts';
import { benchResultsDir, writeBenchResult } from '../bench-results.ts';

const { values } = parseArgs({
  options: {
    deliveries: { type: 'string', default: '1000000' },
    store: { type: 'string', default: 'both' },
    slice: { type: 'string', default: '1000' },
  },
});
const deliveries = count('deliveries', values.deliveries, 1000);
const sliceSize = count('slice', values.slice, 10);
if (!['sqlite', 'cassandra', 'both'].includes(values.store)) fail(`--store takes sqlite, cassandra or both, not ${values.store}`);
const stores = values.store === 'both' ? (['sqlite', 'cassandra'] as const) : ([values.store] as ['sqlite' | 'cassandra']);
const modes: SuccessMode[] = ['all', 'sampled', 'off'];
const sampleRate = 0.01;
const dayMs = 86_400_000;
const repoRoot = resolve(import.meta.dirname, '../..');
const out = (line: string): boolean => process.stdout.write(`${line}\n`);

/** The slices of one push to `deliveries` devices, made lazily (a million events are not held at once). */
function* pushSlices(pushId: string, policy: DeliveryLogPolicy): Generator<LoggedSlice> {
  const startedAt = Date.now();
  for (let first = 0, index = 0; first < deliveries; first += sliceSize, index += 1) {
    const sliceKey = `${pushId.slice(0, 6)}-t${index % 16}/${Math.floor(index / 16)}`;
    const events: DeliveryEvent[] = [];
    const endedAt = startedAt + index * 50;
    for (let n = first; n < Math.min(deliveries, first + sliceSize); n += 1) events.push(deliveryEvent(pushId, sliceKey, n, endedAt));
    yield loggedSlice({ appId: 'bench', pushId, sliceKey, endedAt }, events, policy);
  }
}

function deliveryEvent(pushId: string, sliceKey: string, n: number, endedAt: number): DeliveryEvent {
  const draw = (n * 2_654_435_761) % 1000;
  const base = { version: 1, appId: 'bench', pushId, sliceKey, installation: newObjectId(), tokenSuffix: randomUUID().replaceAll('-', '').slice(0, 8), platform: 'ios', gateway: 'apns' } as const;
  const latencyMs = Math.round((20 + (n % 180) + Math.random() * 10) * 10) / 10;
  const at = endedAt - 2000 + (n % 2000);
  if (draw < 970) return { ...base, outcome: 'delivered', reason: null, unregistered: false, status: 200, messageId: randomUUID().toUpperCase(), attempts: 1, latencyMs, at };
  if (draw < 985) return { ...base, outcome: 'invalidToken', reason: 'Unregistered', unregistered: true, status: 410, messageId: randomUUID().toUpperCase(), attempts: 1, latencyMs, at };
  if (draw < 995) return { ...base, outcome: 'invalidToken', reason: 'BadDeviceToken', unregistered: false, status: 400, messageId: randomUUID().toUpperCase(), attempts: 1, latencyMs, at };
  return { ...base, outcome: 'failed', reason: 'TooManyRequests', unregistered: false, status: 429, messageId: null, attempts: 3, latencyMs: latencyMs + 2000, at };
}

function policyOf(successes: SuccessMode): DeliveryLogPolicy {
  return { enabled: true, retentionMs: 7 * dayMs, successes, sampleRate };
}

interface Measured {
  store: 'sqlite' | 'cassandra';
  successes: SuccessMode;
  slices: number;
  /** Entries kept: every device not delivered, and the delivered ones the mode keeps. */
  entries: number;
  /** The bytes of the rows' values as written: entry blobs, counts, range rows with their filters and keys. */
  valueBytes: number;
  /** On disk: the SQLite file's growth, or Cassandra's live SSTables (compressed). */
  diskBytes: number;
  seconds: number;
}

function valueBytesOf(slice: LoggedSlice): number {
  const keys = 4 + slice.pushId.length + slice.sliceKey.length + 8;
  const entries = slice.entries.failed.length + slice.entries.invalidToken.length + slice.entries.delivered.length;
  const ranges = slice.ranges.reduce((sum, range) => sum + keys + 4 + 4 + range.low.length + range.high.length + range.filter.length, 0);
  return keys + entries + keys + 12 + ranges;
}

function keptOf(slice: LoggedSlice): number {
  // The entries blob's n, without decoding: counts hold every device, kept ones are in the blobs.
  let kept = 0;
  for (const blob of Object.values(slice.entries)) {
    if (blob.length === 0) continue;
    const match = /"n":(\d+)/.exec(blob.subarray(0, 40).toString('latin1'));
    kept += Number(match?.[1] ?? 0);
  }
  return kept;
}

async function measureSqlite(successes: SuccessMode): Promise<Measured> {
  const dir = mkdtempSync(join(tmpdir(), 'herald-log-storage-'));
  const file = join(dir, 'herald.sqlite');
  try {
    const empty = new SqliteStore({ file, classes: {}, clock: systemClock });
    await empty.close();
    const before = fileBytes(file);
    const store = new SqliteStore({ file, classes: {}, clock: systemClock });
    const started = performance.now();
    let slices = 0;
    let entries = 0;
    let valueBytes = 0;
    for (const slice of pushSlices(newObjectId(), policyOf(successes))) {
      await store.deliveries.writeSlice('bench', slice);
      slices += 1;
      entries += keptOf(slice);
      valueBytes += valueBytesOf(slice);
    }
    const seconds = (performance.now() - started) / 1000;
    await store.close();
    return { store: 'sqlite', successes, slices, entries, valueBytes, diskBytes: fileBytes(file) - before, seconds };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

function fileBytes(file: string): number {
  const wal = `${file}-wal`;
  return statSync(file).size + (existsSync(wal) ? statSync(wal).size : 0);
}

const logTables = ['delivery_slices', 'delivery_push_slices', 'delivery_ranges'];

async function measureCassandra(successes: SuccessMode): Promise<Measured> {
  const keyspace = `herald_logsize_${successes}_${Date.now().toString(36)}`;
  const store = await CassandraStore.open({ ...serviceEndpoints.cassandra, contactPoints: [...serviceEndpoints.cassandra.contactPoints], keyspace, classes: {}, clock: systemClock });
  const admin = await connectAdmin();
  try {
    for (const table of logTables) await admin.execute(`ALTER TABLE ${keyspace}.${table} WITH memtable_flush_period_in_ms = 2000`);
    const started = performance.now();
    let slices = 0;
    let entries = 0;
    let valueBytes = 0;
    const inFlight = new Set<Promise<void>>();
    for (const slice of pushSlices(newObjectId(), policyOf(successes))) {
      const write = store.deliveries.writeSlice('bench', slice).finally(() => inFlight.delete(write));
      inFlight.add(write);
      if (inFlight.size >= 16) await Promise.race(inFlight);
      slices += 1;
      entries += keptOf(slice);
      valueBytes += valueBytesOf(slice);
    }
    await Promise.all(inFlight);
    const seconds = (performance.now() - started) / 1000;
    // Flushed within the period, then compacted by time window: wait until the live size holds still.
    let diskBytes = -1;
    for (let stable = 0, tries = 0; stable < 3 && tries < 60; tries += 1) {
      await sleep(2000);
      const now = await liveBytes(admin, keyspace);
      stable = now === diskBytes && now > 0 ? stable + 1 : 0;
      diskBytes = now;
    }
    return { store: 'cassandra', successes, slices, entries, valueBytes, diskBytes, seconds };
  } finally {
    await admin.shutdown();
    await store.close();
    await dropKeyspace(keyspace);
  }
}

async function liveBytes(admin: Awaited<ReturnType<typeof connectAdmin>>, keyspace: string): Promise<number> {
  const result = await admin.execute('SELECT table_name, mebibytes FROM system_views.disk_usage WHERE keyspace_name = ?', [keyspace]);
  // disk_usage answers whole mebibytes; the SSTables' own files are read where the node keeps them, when it is this machine.
  const exact = sstableBytes(keyspace);
  if (exact !== null) return exact;
  return result.rows.filter((row) => logTables.includes(String(row.get('table_name')))).reduce((sum, row) => sum + Number(row.get('mebibytes')) * 1024 * 1024, 0);
}

/** The live SSTable files of the log's tables where `npm run services` keeps the local node's data; null when they are not there. */
function sstableBytes(keyspace: string): number | null {
  const root = join(repoRoot, '.services/cassandra/data/data', keyspace);
  if (!existsSync(root)) return null;
  let total = 0;
  for (const entry of readdir(root)) {
    if (!logTables.some((table) => entry.startsWith(`${table}-`))) continue;
    for (const name of readdir(join(root, entry))) {
      if (/-Data\.db$|-Index\.db$|-Partitions\.db$|-Rows\.db$|-Filter\.db$|-Statistics\.db$|-CompressionInfo\.db$|-Summary\.db$/.test(name)) total += statSync(join(root, entry, name)).size;
    }
  }
  return total;
}

function readdir(path: string): string[] {
  try {
    return readdirSync(path);
  } catch {
    return [];
  }
}

async function main(): Promise<void> {
  if ((stores as readonly string[]).includes('cassandra')) await servicesUp(['cassandra']);
  out(`delivery log storage: ${deliveries.toLocaleString('en-US')} deliveries in slices of ${sliceSize} (97% delivered, 1.5% Unregistered, 1% BadDeviceToken, 0.5% failed), retention 7 days`);
  const results: Measured[] = [];
  for (const store of stores) {
    for (const successes of modes) {
      const measured = store === 'sqlite' ? await measureSqlite(successes) : await measureCassandra(successes);
      results.push(measured);
      const perMillion = (bytes: number): string => `${((bytes * (1_000_000 / deliveries)) / 1024 / 1024).toFixed(1)} MiB`;
      out(
        `${store.padEnd(9)} successes ${successes.padEnd(7)} ${measured.entries.toLocaleString('en-US').padStart(9)} entries, ${measured.slices} slices: ` +
          `on disk ${perMillion(measured.diskBytes)} per million deliveries (${(measured.diskBytes / Math.max(1, measured.entries)).toFixed(1)} B an entry kept), values written ${perMillion(measured.valueBytes)}; ${measured.seconds.toFixed(1)} s`,
      );
    }
  }
  const report = {
    bench: 'delivery-log-storage',
    date: new Date().toISOString(),
    machine: { cpus: cpus().length, cpuModel: cpus()[0]?.model, node: process.version },
    deliveries,
    sliceSize,
    mix: { delivered: 0.97, unregistered: 0.015, badDeviceToken: 0.01, failed: 0.005 },
    sampleRate,
    note: 'SQLite: the file growth after a WAL checkpoint. Cassandra: the live SSTables of delivery_slices, delivery_push_slices and delivery_ranges after flush and compaction, LZ4 as created, one node (replication multiplies it); valueBytes: the bytes of the values written',
    results: results.map((measured) => ({ ...measured, diskBytesPerMillion: Math.round(measured.diskBytes * (1_000_000 / deliveries)), valueBytesPerMillion: Math.round(measured.valueBytes * (1_000_000 / deliveries)) })),
  };
  const resultName = `push-delivery-log-storage${values.store === 'both' ? '' : `-${values.store}`}.json`;
  writeBenchResult(benchResultsDir, resultName, report, out);
}

await main();
