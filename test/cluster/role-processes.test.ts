import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dropKeyspace, testKeyspace } from '../store/cassandra-test-keyspace.ts';
import { eventually } from '../support/eventually.ts';
import { runHeraldCommand, startHeraldProcess, type HeraldProcess } from '../support/herald-process.ts';
import { clusterEnv } from './cluster-env.ts';

interface Readyz {
  status: string;
  roles: Partial<Record<string, { state: string; detail?: Record<string, unknown> }>>;
}

async function readyz(node: HeraldProcess): Promise<{ status: number; body: Readyz }> {
  const response = await fetch(`http://127.0.0.1:${node.internalPort}/readyz`);
  return { status: response.status, body: (await response.json()) as Readyz };
}

describe('roles in processes of their own', () => {
  const keyspace = testKeyspace();
  const { env } = clusterEnv(keyspace);
  const started: HeraldProcess[] = [];
  const start = async (role: string) => {
    const node = await startHeraldProcess({ ...env, HERALD_ROLE: role });
    started.push(node);
    return node;
  };

  beforeAll(async () => {
    // Creates the keyspace and topics once, so that the role processes start at the same pace.
    expect((await runHeraldCommand(['migrate'], env)).code).toBe(0);
  }, 120_000);

  afterAll(async () => {
    await Promise.all(started.map((node) => node.stop()));
    await dropKeyspace(keyspace);
  }, 120_000);

  it('serves /metrics, /healthz and /readyz from a process that runs no api role, on its main port', async () => {
    const sender = await start('sender');
    expect(sender.port).toBe(0);
    expect(sender.internalPort).toBeGreaterThan(0);
    const metrics = await fetch(`http://127.0.0.1:${sender.internalPort}/metrics`);
    expect(metrics.status).toBe(200);
    expect(await metrics.text()).toMatch(/^herald_bus_consumer_lag\{group="[^"]*herald-sender"/m);
    expect(await (await fetch(`http://127.0.0.1:${sender.internalPort}/healthz`)).json()).toMatchObject({ status: 'ok', roles: { sender: { state: 'running' } } });
    const ready = await readyz(sender);
    expect(ready.status).toBe(200);
    expect(Object.keys(ready.body.roles)).toEqual(['sender']);
    expect(ready.body.roles.sender?.detail).toEqual({ partitions: expect.any(Object) });
  }, 120_000);

  it('lets exactly one scheduler lead, and hands the lease over when the leader stops', async () => {
    const first = await start('scheduler');
    await eventually('the first scheduler leading', async () => (await readyz(first)).body.roles.scheduler?.detail?.leading, (leading) => leading === true, { timeoutMs: 60_000 });
    const second = await start('scheduler');
    await eventually('the second scheduler ready', async () => (await readyz(second)).status, (status) => status === 200, { timeoutMs: 60_000 });
    // Sampled over several of its rounds (one a second): the second never leads while the first holds the lease.
    for (let round = 0; round < 5; round += 1) {
      expect((await readyz(second)).body.roles.scheduler?.detail).toEqual({ leading: false });
      expect((await readyz(first)).body.roles.scheduler?.detail).toEqual({ leading: true });
      await delay(250);
    }
    expect(await first.stop()).toBe(0);
    started.splice(started.indexOf(first), 1);
    // The stopping leader releases its lease: the other takes it within a few rounds, not a lease TTL.
    await eventually('the second scheduler taking the lease over', async () => (await readyz(second)).body.roles.scheduler?.detail?.leading, (leading) => leading === true, { timeoutMs: 10_000 });
  }, 120_000);
});

/** Starts Herald expecting it to refuse: answers its exit code and output, or stops it and fails if it started. */
async function refusal(env: Record<string, string>): Promise<string> {
  let node: HeraldProcess;
  try {
    node = await startHeraldProcess(env);
  } catch (error) {
    return (error as Error).message;
  }
  await node.stop();
  throw new Error('Herald started although its configuration should have been refused');
}

describe('a configuration that breaks with a second node', () => {
  const dataDir = () => mkdtempSync(join(tmpdir(), 'herald-refused-'));
  const app = { HERALD_APP_ID: 'refusals', HERALD_APP_KEY: 'app-key-123', HERALD_MASTER_KEY: 'master-key-123' };

  it('is refused at start with the reason when a role runs apart on the embedded backends', async () => {
    const refused = await refusal({ ...app, HERALD_DATA_DIR: dataDir(), HERALD_ROLE: 'api' });
    expect(refused).toMatch(/^exited with 1: Refusing to start a configuration that breaks with more than one node/);
    expect(refused).toMatch(/in-process bus cannot reach them/);
  });

  it('is refused when nodes on shared backends have no configured app keys', async () => {
    const { env } = clusterEnv('herald_never_created');
    const { HERALD_APP_ID: _id, HERALD_APP_KEY: _key, HERALD_MASTER_KEY: _master, ...withoutApp } = env;
    const refused = await refusal(withoutApp);
    expect(refused).toMatch(/^exited with 1: Refusing to start.*\n.*made development keys of its own/);
  });

  it('refuses a second process on the same embedded data directory, naming the first', async () => {
    const shared = dataDir();
    const first = await startHeraldProcess({ ...app, HERALD_DATA_DIR: shared });
    try {
      const second = await refusal({ ...app, HERALD_DATA_DIR: shared });
      expect(second).toMatch(/^exited with 1: /);
      expect(second).toContain(`Another Herald process (pid ${first.child.pid}) uses the embedded store`);
      // The first one is untouched.
      expect((await fetch(`http://127.0.0.1:${first.port}/readyz`)).status).toBe(200);
    } finally {
      expect(await first.stop()).toBe(0);
    }
    // Once the first stopped, the directory is free again.
    const third = await startHeraldProcess({ ...app, HERALD_DATA_DIR: shared });
    expect(await third.stop()).toBe(0);
  }, 60_000);
});
