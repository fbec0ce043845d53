import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { userClassDescriptor } from '../../src/accounts/user-class.ts';
import { systemClock } from '../../src/core/clock.ts';
import { ImportRun, type ImportOptions } from '../../src/import/import-run.ts';
import { CassandraStore } from '../../src/store/cassandra/cassandra-store.ts';
import { cassandraTestOptions, dropKeyspace, testKeyspace } from '../store/cassandra-test-keyspace.ts';
import { TcpProxy } from '../store/cassandra-tcp-proxy.ts';
import { eventually } from '../support/eventually.ts';
import { serviceEndpoints } from '../support/service-endpoints.ts';
import { exportDir, removeExportDirs, writeManyUsers } from './export-fixture.ts';

/**
 * `herald import` while Cassandra cannot be reached for a while: the
 * import waits for it and finishes; only a Cassandra that answers nothing
 * for the patience stops it, saying what it saw, with the checkpoint kept.
 */
const keyspace = testKeyspace();
let proxy: TcpProxy;
let store: CassandraStore;

beforeAll(async () => {
  // Created through a direct connection, so the proxied store only opens it.
  const direct = await CassandraStore.open({ ...cassandraTestOptions(keyspace), classes: { _User: userClassDescriptor } });
  await direct.close();
  proxy = await TcpProxy.start(serviceEndpoints.cassandra.contactPoints[0]);
  store = await CassandraStore.open({ ...cassandraTestOptions(keyspace), contactPoints: [proxy.address], requestTimeoutMs: 5000, classes: { _User: userClassDescriptor } });
}, 180_000);
afterAll(async () => {
  await store?.close();
  await proxy?.stop();
  await dropKeyspace(keyspace);
  removeExportDirs();
}, 120_000);

function importRun(dir: string, appId: string, options: Partial<ImportOptions>): ImportRun {
  return new ImportRun(
    {
      appId,
      files: [join(dir, '_User.0.jsonl')],
      dryRun: false,
      rejectsPath: join(dir, 'rejects.jsonl'),
      statePath: join(dir, 'state.json'),
      restart: false,
      concurrency: 32,
      ...options,
    },
    { store, clock: systemClock, newSessionToken: () => randomBytes(8).toString('hex') },
  );
}

describe('herald import on Cassandra while it cannot be reached', () => {
  it('waits out a Cassandra cut off for seconds in the middle of the import and imports every row once', async () => {
    const dir = exportDir();
    // Many more rows than the 4,000 the import has in flight at once, so that the cut comes before the last of them.
    const users = 20_000;
    writeManyUsers(join(dir, '_User.0.jsonl'), users);
    const run = importRun(dir, 'cassoutage1', {});
    const done = run.run();
    await eventually('the first rows settled', () => run.progress.rowsThisRun, (rows) => rows > 0, { timeoutMs: 120_000 });
    await proxy.cut();
    await new Promise((resolve) => setTimeout(resolve, 4000));
    await proxy.resume();
    const summary = await done;

    expect(summary.status, summary.error).toBe('done');
    expect(summary.tally._User).toEqual({ read: users, imported: users, present: 0, rejected: 0 });
    expect(summary.writes?.unreachable).toBeGreaterThan(0);
    expect(summary.writes?.retried).toBeGreaterThan(0);
  }, 300_000);

  it('stops once Cassandra has answered nothing for the patience, says what it saw, and keeps the checkpoint', async () => {
    const dir = exportDir();
    // Many more rows than the 4,000 the import has in flight at once, so that the cut comes before the last of them.
    const users = 20_000;
    writeManyUsers(join(dir, '_User.0.jsonl'), users);
    const run = importRun(dir, 'cassoutage2', { patienceMs: 3000 });
    const done = run.run();
    await eventually('the first rows settled', () => run.progress.rowsThisRun, (rows) => rows > 0, { timeoutMs: 120_000 });
    await proxy.cut();
    try {
      const summary = await done;
      expect(summary.status).toBe('failed');
      expect(summary.error).toMatch(/Cassandra is unavailable; retry later: nothing answered for 3 s while retrying \(\d+ timeouts or overloaded answers, [\d,]+ unreachable, [\d,]+ retries; last: /);
      expect(summary.statePath).toBe(join(dir, 'state.json'));
      expect(summary.tally._User?.imported).toBeGreaterThan(0);
      expect(summary.tally._User?.imported).toBeLessThan(users);
    } finally {
      await proxy.resume();
    }
  }, 300_000);
});
