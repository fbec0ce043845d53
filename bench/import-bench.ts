/**
 * `npm run bench:import [-- --users 1000000] [--installations 0] [--store sqlite|cassandra] [--cluster] [--concurrency N] [--shards N] [--keep]`
 *
 * Writes an export of N users (and optionally installations) as the hosted
 * service's console does — JSON Lines after a `#filetype` header, each user
 * with a password hash and salt, a session token, an ACL, some with a
 * mobile number, a third-party account and custom fields — then runs
 * `herald import` on it as its own process, on the embedded store (a fresh
 * data directory) or on the local Cassandra (a fresh keyspace, dropped
 * afterwards). Reports rows/s of the import, its CPU seconds and peak RSS,
 * and its RSS as the file is read (from the checkpoint it keeps), which
 * should stay flat whatever the file's size. Fails unless every row was
 * imported. Each class is imported by a run of its own, so that users/s and
 * installations/s are measured apart; on Cassandra the same rows are then
 * written as plain unconditional inserts (bench/import/plain-inserts.ts) and
 * the ratio printed. `--cluster` imports into the three-node cluster of
 * `npm run services -- cluster up` instead of the single node, the keyspace
 * at replication 3, writes at LOCAL_QUORUM. `--shards N` creates the store
 * with N installation shards (`push.installationShards`, default 64), the
 * plain inserts too. On Cassandra it also reads the
 * Cassandra nodes' own CPU from /proc over the import and over the plain
 * inserts, and the plain inserts' process CPU: µs a row of each, so that a
 * gap between the two says whose work it is. Results go to
 * bench/results/import-<store>[-cluster][-<users>[-<installations>]].json.
 */
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { createWriteStream, existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { once } from 'node:events';
import { parseArgs } from 'node:util';
import { hostedPasswordHash } from '../src/accounts/legacy-password.ts';
import type { ImportSummary } from '../src/import/import-run.ts';
import type { ImportState } from '../src/import/import-state.ts';
import { clusterEndpoints, clusterStatus } from '../scripts/services/cluster.ts';
import { servicesStatus } from '../scripts/services/services.ts';
import { connectCassandra } from '../src/store/cassandra/cassandra-client.ts';
import { serviceEndpoints } from '../test/support/service-endpoints.ts';
import { cpuSeconds, memoryStats } from './push/process-stats.ts';
import { count, fail } from './bench-args.ts';
import { benchResultsDir, writeBenchResult } from './bench-results.ts';

const { values } = parseArgs({
  options: {
    users: { type: 'string', default: '1000000' },
    installations: { type: 'string', default: '0' },
    store: { type: 'string', default: 'sqlite' },
    cluster: { type: 'boolean', default: false },
    concurrency: { type: 'string' },
    shards: { type: 'string' },
    keep: { type: 'boolean', default: false },
  },
});

const users = count('users', values.users, 1);
const installations = count('installations', values.installations, 0);
const cluster = values.cluster;
const store = cluster ? 'cassandra' : values.store;
if (store !== 'sqlite' && store !== 'cassandra') fail(`--store is sqlite or cassandra, not ${store}`);
/** The Cassandra nodes written to: the single local node, or the three of the cluster with the keyspace at replication 3. */
const cassandra = cluster ? { contactPoints: clusterEndpoints().cassandra, replication: 3 } : { contactPoints: serviceEndpoints.cassandra.contactPoints, replication: 1 };
const concurrency = values.concurrency === undefined ? undefined : count('concurrency', values.concurrency, 1);
/** Installation shards of the store created, when not the default. */
const shards = values.shards === undefined ? undefined : count('shards', values.shards, 1);
const root = resolve(import.meta.dirname, '..');
const appId = 'benchimport';
const work = mkdtempSync(join(tmpdir(), 'herald-import-bench-'));
/** The config file setting the store's shard count, or none. */
const heraldConfig = shards === undefined ? '' : join(work, 'herald.json');
if (shards !== undefined) writeFileSync(heraldConfig, JSON.stringify({ push: { installationShards: shards } }));
const keyspace = `herald_bench_import_${randomBytes(4).toString('hex')}`;

/** Salts and their hashes of "password-<i>", computed once: the importer checks a hash's form, not its value. */
const passwords = Array.from({ length: 64 }, (_, index) => {
  const salt = randomBytes(24).toString('hex').slice(0, 48);
  return { salt, hash: hostedPasswordHash(salt, `password-${index}`) };
});

function userRow(n: number): Record<string, unknown> {
  const objectId = n.toString(16).padStart(24, '0');
  const { salt, hash } = passwords[n % passwords.length] as { salt: string; hash: string };
  const created = Date.UTC(2018, 0, 1) + n * 60_000;
  return {
    salt,
    password: hash,
    sessionToken: `${objectId}${randomBytes(8).toString('hex')}`,
    username: `user${n}`,
    email: `user${n}@example.com`,
    emailVerified: n % 3 === 0,
    ...(n % 2 === 0 ? { mobilePhoneNumber: `+86138${String(n).padStart(8, '0')}`, mobilePhoneVerified: true } : { mobilePhoneVerified: false }),
    ...(n % 10 === 0 ? { authData: { weixin: { openid: `wx-${objectId}`, access_token: 'token', expires_in: 7200 } } } : {}),
    nickname: `Player ${n}`,
    level: n % 100,
    birthday: { __type: 'Date', iso: new Date(Date.UTC(1990, 0, 1) + (n % 10_000) * 86_400_000).toISOString() },
    ACL: { '*': { read: true }, [objectId]: { read: true, write: true } },
    objectId,
    createdAt: new Date(created).toISOString(),
    updatedAt: new Date(created + 86_400_000).toISOString(),
  };
}

function installationRow(n: number): Record<string, unknown> {
  const ios = n % 2 === 0;
  return {
    objectId: `i${n.toString(16).padStart(23, '0')}`,
    deviceType: ios ? 'ios' : 'android',
    ...(ios ? { deviceToken: n.toString(16).padStart(64, '0') } : { installationId: `android${n}`, registrationId: `fcm-${n}-${randomBytes(8).toString('hex')}`, vendor: 'fcm' }),
    channels: n % 3 === 0 ? ['news', 'sports'] : ['news'],
    timeZone: 'Asia/Shanghai',
    badge: 0,
    createdAt: '2021-03-04T05:06:07.089Z',
    updatedAt: '2022-03-04T05:06:07.089Z',
  };
}

/** Streams rows to a file a block at a time, so writing a million rows holds a block in memory. */
async function writeExport(path: string, className: string, rows: number, row: (n: number) => Record<string, unknown>): Promise<number> {
  const out = createWriteStream(path);
  out.write(`#filetype:JSON-streaming {"type":"Class","class":"${className}"}\n`);
  let block: string[] = [];
  for (let n = 0; n < rows; n += 1) {
    block.push(JSON.stringify(row(n)));
    if (block.length === 5000 || n === rows - 1) {
      if (!out.write(`${block.join('\n')}\n`)) await once(out, 'drain');
      block = [];
    }
  }
  out.end();
  await once(out, 'finish');
  return statSync(path).size;
}

interface Sample {
  seconds: number;
  rssMb: number;
  /** Share of the export's bytes settled, from the import's checkpoint. */
  share: number;
}

async function runImport(files: string[], totalBytes: number): Promise<{ summary: ImportSummary; samples: Sample[]; peakRssMb: number; cpu: number; wall: number; exitCode: number | null }> {
  const storeEnv: Record<string, string> =
    store === 'cassandra'
      ? {
          HERALD_STORE: 'cassandra',
          HERALD_CASSANDRA_CONTACT_POINTS: cassandra.contactPoints.join(','),
          HERALD_CASSANDRA_LOCAL_DC: serviceEndpoints.cassandra.localDataCenter,
          HERALD_CASSANDRA_KEYSPACE: keyspace,
          HERALD_CASSANDRA_REPLICATION: String(cassandra.replication),
        }
      : {};
  const nodeFlags = (JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { config: { nodeFlags: string } }).config.nodeFlags.split(' ').filter(Boolean);
  const args = [...nodeFlags, join(root, 'src/main.ts'), 'import', '--app', appId, '--json', ...(concurrency === undefined ? [] : ['--concurrency', String(concurrency)]), ...files];
  const started = performance.now();
  const child = spawn(process.execPath, args, {
    cwd: work,
    env: { ...process.env, HERALD_CONFIG: heraldConfig, HERALD_DATA_DIR: join(work, 'data'), HERALD_APP_ID: appId, HERALD_APP_KEY: 'bench-import-key-0123', HERALD_MASTER_KEY: 'bench-import-master-0123', ...storeEnv },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let stdout = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  const samples: Sample[] = [];
  let peakRssMb = 0;
  let cpu = 0;
  const statePath = join(work, `herald-import-${appId}.state.json`);
  const sample = (): void => {
    try {
      const memory = memoryStats(child.pid as number);
      cpu = cpuSeconds(child.pid as number);
      peakRssMb = Math.max(peakRssMb, memory.peakRssMb);
      samples.push({ seconds: (performance.now() - started) / 1000, rssMb: memory.rssMb, share: settledShare(statePath, totalBytes) });
    } catch {
      // The process is gone; its last reading stands.
    }
  };
  const timer = setInterval(sample, 1000);
  const [exitCode] = (await once(child, 'exit')) as [number | null];
  clearInterval(timer);
  const wall = (performance.now() - started) / 1000;
  if (exitCode !== 0) fail(`herald import exited with ${exitCode}:\n${stdout}`);
  return { summary: JSON.parse(stdout) as ImportSummary, samples, peakRssMb, cpu, wall, exitCode };
}

interface ClassResult {
  rows: number;
  importSeconds: number;
  rowsPerSecond: number;
  cpuSeconds: number;
  writes?: ImportSummary['writes'];
  plainInserts?: { seconds: number; rowsPerSecond: number; cqlRows: number; cpuSeconds: number };
  /** CPU µs a row, Cassandra's and the writing process's, of the import and of the plain inserts (Cassandra only). */
  cpuMicrosPerRow?: { import: { importer: number; cassandra: number }; plainInserts: { writer: number; cassandra: number } };
  /** The import's rows/s over the plain inserts' rows/s, in the same run. */
  toPlainInserts?: number;
}

/** The same rows as plain unconditional inserts (bench/import/plain-inserts.ts), as a process of its own, into another app of the keyspace. */
async function runPlain(file: string): Promise<{ rows: number; seconds: number; cqlRows: number; cpuSeconds: number }> {
  const args = [join(root, 'bench/import/plain-inserts.ts'), '--file', file, '--keyspace', keyspace, '--app', `${appId}plain`, '--concurrency', String(concurrency ?? 64), '--shards', String(shards ?? 64), '--contact-points', cassandra.contactPoints.join(',')];
  const child = spawn(process.execPath, args, { cwd: work, stdio: ['ignore', 'pipe', 'inherit'] });
  let stdout = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  const [exitCode] = (await once(child, 'exit')) as [number | null];
  if (exitCode !== 0) fail(`the plain inserts exited with ${exitCode}`);
  return JSON.parse(stdout) as { rows: number; seconds: number; cqlRows: number; cpuSeconds: number };
}

/** The pids of the Cassandra nodes written to (the local node, or the cluster's three); fails when one is not running. */
async function cassandraPids(): Promise<number[]> {
  const statuses = cluster ? (await clusterStatus()).filter((status) => status.name.startsWith('cassandra-')) : await servicesStatus(['cassandra']);
  return statuses.map((status) => {
    if (status.pid === undefined) fail(`${status.name} is not running: its CPU cannot be measured`);
    return status.pid;
  });
}

/** The Cassandra nodes' CPU seconds while `run` runs, with what it answers. */
async function withCassandraCpu<T>(pids: readonly number[], run: () => Promise<T>): Promise<{ value: T; cassandraCpu: number }> {
  const total = (): number => pids.reduce((sum, pid) => sum + cpuSeconds(pid), 0);
  const before = total();
  const value = await run();
  return { value, cassandraCpu: total() - before };
}

/** µs a row, rounded to one decimal. */
function microsPerRow(seconds: number, rows: number): number {
  return Math.round((seconds * 1e7) / rows) / 10;
}

async function dropKeyspace(name: string): Promise<void> {
  const client = await connectCassandra({ contactPoints: cassandra.contactPoints, localDataCenter: serviceEndpoints.cassandra.localDataCenter, keyspace: name, requestTimeoutMs: 60_000 });
  try {
    await client.execute(`DROP KEYSPACE IF EXISTS ${name}`);
  } finally {
    await client.shutdown();
  }
}

function settledShare(statePath: string, totalBytes: number): number {
  if (!existsSync(statePath)) return 0;
  try {
    const state = JSON.parse(readFileSync(statePath, 'utf8')) as ImportState;
    return Object.values(state.files).reduce((sum, file) => sum + file.offset, 0) / totalBytes;
  } catch {
    return Number.NaN;
  }
}

/** RSS by tenth of the file settled: the highest reading in each tenth. */
function rssByTenth(samples: readonly Sample[]): (number | null)[] {
  return Array.from({ length: 10 }, (_, tenth) => {
    const inTenth = samples.filter((sample) => sample.share >= tenth / 10 && sample.share < (tenth + 1) / 10);
    return inTenth.length === 0 ? null : Math.round(Math.max(...inTenth.map((sample) => sample.rssMb)));
  });
}

async function main(): Promise<void> {
  process.stdout.write(`bench: writing ${users.toLocaleString('en-US')} users${installations > 0 ? ` and ${installations.toLocaleString('en-US')} installations` : ''} to ${work}\n`);
  const files = [join(work, '_User.0.jsonl')];
  let totalBytes = await writeExport(files[0] as string, '_User', users, userRow);
  if (installations > 0) {
    files.push(join(work, '_Installation.0.jsonl'));
    totalBytes += await writeExport(files[1] as string, '_Installation', installations, installationRow);
  }
  process.stdout.write(`bench: ${(totalBytes / 1e6).toFixed(0)} MB of export; importing into the ${store} store, one class at a time…\n`);
  try {
    const byClass: Record<string, ClassResult> = {};
    const samples: Sample[] = [];
    let peakRssMb = 0;
    let cpu = 0;
    let wall = 0;
    const tally: ImportSummary['tally'] = {};
    const pids = store === 'cassandra' ? await cassandraPids() : [];
    for (const file of files) {
      const className = file.endsWith('_User.0.jsonl') ? '_User' : '_Installation';
      const expected = className === '_User' ? users : installations;
      const { value: run, cassandraCpu: importCassandraCpu } = await withCassandraCpu(pids, () => runImport([file], statSync(file).size));
      const counts = run.summary.tally[className];
      if (counts?.read !== expected || counts.imported !== expected) fail(`${className}: expected ${expected} rows imported, got ${JSON.stringify(counts)}`);
      Object.assign(tally, run.summary.tally);
      samples.push(...run.samples);
      peakRssMb = Math.max(peakRssMb, run.peakRssMb);
      cpu += run.cpu;
      wall += run.wall;
      const rowsPerSecond = Math.round(expected / run.summary.seconds);
      const plain = store === 'cassandra' ? await withCassandraCpu(pids, () => runPlain(file)) : null;
      byClass[className] = {
        rows: expected,
        importSeconds: Number(run.summary.seconds.toFixed(1)),
        rowsPerSecond,
        cpuSeconds: Number(run.cpu.toFixed(1)),
        ...(run.summary.writes === undefined ? {} : { writes: run.summary.writes }),
        ...(plain === null
          ? {}
          : {
              plainInserts: {
                seconds: Number(plain.value.seconds.toFixed(1)),
                rowsPerSecond: Math.round(plain.value.rows / plain.value.seconds),
                cqlRows: plain.value.cqlRows,
                cpuSeconds: Number(plain.value.cpuSeconds.toFixed(1)),
              },
              toPlainInserts: Number((rowsPerSecond / (plain.value.rows / plain.value.seconds)).toFixed(3)),
              cpuMicrosPerRow: {
                import: { importer: microsPerRow(run.cpu, expected), cassandra: microsPerRow(importCassandraCpu, expected) },
                plainInserts: { writer: microsPerRow(plain.value.cpuSeconds, plain.value.rows), cassandra: microsPerRow(plain.cassandraCpu, plain.value.rows) },
              },
            }),
      };
      const line = byClass[className];
      process.stdout.write(
        `bench: ${className}: ${expected.toLocaleString('en-US')} rows in ${line.importSeconds} s: ${rowsPerSecond.toLocaleString('en-US')} rows/s, ${line.cpuSeconds} CPU s` +
          (line.plainInserts === undefined ? '' : `; the same rows as plain inserts: ${line.plainInserts.rowsPerSecond.toLocaleString('en-US')} rows/s; import ÷ plain = ${String(line.toPlainInserts)}`) +
          (line.cpuMicrosPerRow === undefined
            ? ''
            : `; CPU µs a row, importer + Cassandra: ${line.cpuMicrosPerRow.import.importer} + ${line.cpuMicrosPerRow.import.cassandra}, plain inserts ${line.cpuMicrosPerRow.plainInserts.writer} + ${line.cpuMicrosPerRow.plainInserts.cassandra}`) +
          (line.writes === undefined ? '' : `; ${line.writes.answered.toLocaleString('en-US')} statements (${(line.writes.answered / expected).toFixed(2)} a row), in flight ${line.writes.startingLimit} at the start, ${line.writes.limit} at the end, ${line.writes.lowestLimit} at the lowest, ${line.writes.retried} retried`) +
          '\n',
      );
    }
    const rows = users + installations;
    const importSeconds = Object.values(byClass).reduce((sum, line) => sum + line.importSeconds, 0);
    const result = {
      store,
      users,
      installations,
      exportBytes: totalBytes,
      importSeconds: Number(importSeconds.toFixed(1)),
      rowsPerSecond: Math.round(rows / importSeconds),
      byClass,
      wallSeconds: Number(wall.toFixed(1)),
      cpuSeconds: Number(cpu.toFixed(1)),
      peakRssMb: Math.round(peakRssMb),
      rssMbByTenthOfFile: rssByTenth(samples),
      concurrency: concurrency ?? (store === 'cassandra' ? 64 : 8),
      installationShards: shards ?? 64,
      tally,
      machine: { cpus: cpus().length, model: cpus()[0]?.model ?? '', loadAverage: loadavg().map((load) => Number(load.toFixed(2))), node: process.version },
      date: new Date().toISOString(),
    };
    process.stdout.write(
      `\nbench: ${rows.toLocaleString('en-US')} rows into ${store} in ${result.importSeconds} s: ${result.rowsPerSecond.toLocaleString('en-US')} rows/s, ` +
        `${result.cpuSeconds} CPU s, peak RSS ${result.peakRssMb} MB\n` +
        `bench: RSS (MB) by tenth of the file settled: ${result.rssMbByTenthOfFile.map((mb) => mb ?? '-').join(' ')}\n`,
    );
    const name = `import-${store}${cluster ? '-cluster' : ''}${users === 1_000_000 && installations === 0 ? '' : `-${users}${installations > 0 ? `-${installations}` : ''}`}${shards === undefined ? '' : `-shards${shards}`}.json`;
    writeBenchResult(benchResultsDir, name, result, (line) => process.stdout.write(`bench: ${line}\n`));
  } finally {
    if (store === 'cassandra') await dropKeyspace(keyspace).catch((error: unknown) => process.stderr.write(`bench: keyspace ${keyspace} not dropped: ${String(error)}\n`));
    if (values.keep) process.stdout.write(`bench: kept ${work}\n`);
    else rmSync(work, { recursive: true, force: true });
  }
}

await main();
