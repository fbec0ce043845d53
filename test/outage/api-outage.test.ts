import { setTimeout as delay } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { servicesDown, servicesUp } from '../../scripts/services/services.ts';
import { clusterEnv, nodeClient } from '../cluster/cluster-env.ts';
import { dropKeyspace, testKeyspace } from '../store/cassandra-test-keyspace.ts';
import { startHeraldProcess, type HeraldProcess } from '../support/herald-process.ts';

/**
 * Stops and restarts the real local services under a running API process.
 * Runs in its own phase (vitest.outage.config.ts), after every other test,
 * because it takes shared services away.
 */
describe('an API node while Cassandra, Redis or Kafka is down', () => {
  const keyspace = testKeyspace();
  const { app, env } = clusterEnv(keyspace);
  let node: HeraldProcess;
  let call: ReturnType<typeof nodeClient>;
  let sessionToken: string;

  const readyz = async () => {
    const response = await fetch(`http://127.0.0.1:${node.port}/readyz`);
    return { status: response.status, body: (await response.json()) as { status: string; checks: Record<string, { status: string; error?: string }> } };
  };
  const me = () => call('GET', '/1.1/users/me', undefined, { 'X-SVC-Session': sessionToken });

  /** Polls `probe` until it holds, for a service coming back; fails with the last answer after `ms`. */
  async function eventually(probe: () => Promise<boolean>, what: string, ms = 90_000): Promise<void> {
    const deadline = Date.now() + ms;
    while (!(await probe())) {
      if (Date.now() > deadline) throw new Error(`${what} did not happen within ${ms} ms`);
      await delay(250);
    }
  }

  beforeAll(async () => {
    node = await startHeraldProcess(env);
    call = nodeClient(node.port, app);
    const created = await call('POST', '/1.1/users', { username: 'steady', password: 'steady-pw' });
    expect(created.status).toBe(201);
    sessionToken = created.body.sessionToken as string;
  }, 120_000);

  afterAll(async () => {
    // Whatever happened, leave the services running for whatever runs next.
    await servicesUp(['cassandra', 'redis', 'kafka']);
    await node.stop();
    await dropKeyspace(keyspace);
  }, 240_000);

  it('stays ready and serves accounts while Kafka is down, refuses pushes with 503, and accepts them again after', async () => {
    const push = () => call('POST', '/1.1/push', { data: { alert: 'hello' } }, { 'X-SVC-Key': `${app.masterKey},master` });
    expect((await push()).status).toBe(201);
    await servicesDown(['kafka']);
    await eventually(async () => (await readyz()).body.checks.bus?.status === 'unavailable', 'readyz reporting Kafka down', 10_000);
    for (let probe = 0; probe < 3; probe += 1) {
      const started = performance.now();
      const ready = await readyz();
      // Each backend check is bounded (800 ms) and answers are shared for a second: a probe never waits on Kafka's client.
      expect(performance.now() - started).toBeLessThan(2_000);
      expect(ready.status).toBe(200);
      expect(ready.body.checks.bus).toMatchObject({ status: 'unavailable', optional: true });
      expect(ready.body.checks.store).toEqual({ status: 'ok' });
    }
    expect((await call('POST', '/1.1/login', { username: 'steady', password: 'steady-pw' })).status).toBe(200);
    expect((await me()).status).toBe(200);
    const refused = await push();
    expect(refused.status).toBe(503);
    expect(refused.body.code).toBe(503);

    await servicesUp(['kafka']);
    await eventually(async () => (await push()).status === 201, 'a push accepted after Kafka returned');
    await eventually(async () => (await readyz()).body.checks.bus?.status === 'ok', 'the bus reported ok again');
  }, 240_000);

  it('answers 503 while Redis is down, keeps running, and recovers by itself', async () => {
    await servicesDown(['redis']);
    const login = await call('POST', '/1.1/login', { username: 'steady', password: 'steady-pw' });
    expect(login.status).toBe(503);
    expect(login.body).toEqual({ code: 503, error: expect.stringMatching(/Redis is unavailable/) });
    // Readiness answers are reused for a second: the outage shows within about that.
    let ready = await readyz();
    await eventually(async () => (ready = await readyz()).status === 503, 'readyz reporting Redis down', 10_000);
    expect(ready.body.checks.coordination?.status).toBe('unavailable');
    expect(ready.body.checks.store).toEqual({ status: 'ok' });
    // Reads that need only the store still work.
    expect((await me()).status).toBe(200);
    expect((await fetch(`http://127.0.0.1:${node.port}/healthz`)).status).toBe(200);

    await servicesUp(['redis']);
    await eventually(async () => (await call('POST', '/1.1/login', { username: 'steady', password: 'steady-pw' })).status === 200, 'login after Redis returned');
    await eventually(async () => (await readyz()).status === 200, 'readyz reporting ready again', 10_000);
  }, 120_000);

  it('answers 503 while Cassandra is down, writes nothing half-way, and recovers by itself', async () => {
    await servicesDown(['cassandra']);
    const read = await me();
    expect(read.status).toBe(503);
    expect(read.body).toEqual({ code: 503, error: expect.stringMatching(/Cassandra is unavailable/) });
    const register = await call('POST', '/1.1/users', { username: 'during-outage', password: 'pw-outage' });
    expect(register.status).toBe(503);
    expect(register.body.code).toBe(503);
    let ready = await readyz();
    await eventually(async () => (ready = await readyz()).status === 503 && ready.body.checks.coordination?.status === 'ok', 'readyz reporting Cassandra down', 10_000);
    expect(ready.body.checks.store?.status).toBe('unavailable');
    expect(ready.body.checks.coordination).toEqual({ status: 'ok' });
    expect((await fetch(`http://127.0.0.1:${node.port}/healthz`)).status).toBe(200);

    await servicesUp(['cassandra']);
    await eventually(async () => (await me()).status === 200, 'a read after Cassandra returned');
    await eventually(async () => (await readyz()).status === 200, 'readyz reporting ready again', 10_000);
    // The refused registration left no claim behind: the name is free.
    const again = await call('POST', '/1.1/users', { username: 'during-outage', password: 'pw-outage' });
    expect(again.status).toBe(201);
  }, 240_000);
});
