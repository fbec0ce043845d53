import { Kafka, logLevel } from 'kafkajs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { serviceEndpoints } from '../support/service-endpoints.ts';
import { startHeraldProcess, type HeraldProcess } from '../support/herald-process.ts';
import { dropKeyspace, testKeyspace } from '../store/cassandra-test-keyspace.ts';
import { clusterEnv, nodeClient, type ClusterApp } from './cluster-env.ts';

describe('two API processes on one Cassandra and one Redis', () => {
  const keyspace = testKeyspace();
  const { app, env } = clusterEnv(keyspace);
  let nodes: HeraldProcess[] = [];
  let a: ReturnType<typeof nodeClient>;
  let b: ReturnType<typeof nodeClient>;

  beforeAll(async () => {
    // Both start on an empty keyspace at once, so both run the migrations concurrently.
    nodes = await Promise.all([startHeraldProcess(env), startHeraldProcess(env)]);
    const [first, second] = nodes as [HeraldProcess, HeraldProcess];
    a = nodeClient(first.port, app);
    b = nodeClient(second.port, app);
  }, 120_000);

  afterAll(async () => {
    await Promise.all(nodes.map((node) => node.stop()));
    await dropKeyspace(keyspace);
  });

  it('report every dependency ready', async () => {
    for (const node of nodes) {
      const ready = await fetch(`http://127.0.0.1:${node.port}/readyz`);
      expect(ready.status).toBe(200);
      // An API node needs no bus to be ready: pushes answer 503 without it, accounts work.
      expect(await ready.json()).toEqual({ status: 'ok', checks: { store: { status: 'ok' }, coordination: { status: 'ok' }, bus: { status: 'ok', optional: true } }, roles: { api: { state: 'running' } } });
    }
  });

  it('create the push topics on Kafka with the configured partition counts', async () => {
    const kafka = new Kafka({ clientId: 'herald-test', brokers: [...serviceEndpoints.kafka.brokers], logLevel: logLevel.NOTHING });
    const admin = kafka.admin();
    await admin.connect();
    try {
      const { topics } = await admin.fetchTopicMetadata({ topics: ['push.requests', 'push.tasks'] });
      expect(Object.fromEntries(topics.map((topic) => [topic.name, topic.partitions.length]))).toEqual({ 'push.requests': 6, 'push.tasks': 24 });
    } finally {
      await admin.disconnect();
    }
  });

  it('register one username at the same moment on both: exactly one 201 and one clean 202', async () => {
    for (let round = 0; round < 5; round += 1) {
      const username = `race-${round}-${app.id}`;
      const answers = await Promise.all([a('POST', '/1.1/users', { username, password: 'pw-one' }), b('POST', '/1.1/users', { username, password: 'pw-two' })]);
      const statuses = answers.map((answer) => answer.status).sort();
      expect(statuses).toEqual([201, 400]);
      const loser = answers.find((answer) => answer.status === 400);
      expect(loser?.body).toEqual({ code: 202, error: expect.stringMatching(/username/i) });
      const winner = answers.find((answer) => answer.status === 201);
      // The winner's password logs in on either node; the loser left nothing behind.
      const password = winner === answers[0] ? 'pw-one' : 'pw-two';
      expect((await b('POST', '/1.1/login', { username, password })).status).toBe(200);
      expect((await a('POST', '/1.1/login', { username, password })).status).toBe(200);
    }
  });

  it('lock an account after failures spread across both processes', async () => {
    const username = `locked-${app.id}`;
    expect((await a('POST', '/1.1/users', { username, password: 'right-pw' })).status).toBe(201);
    // Six failures, alternating nodes: each node alone has seen only three.
    for (let attempt = 0; attempt < 6; attempt += 1) {
      const node = attempt % 2 === 0 ? a : b;
      const answer = await node('POST', '/1.1/login', { username, password: 'wrong-pw' });
      expect(answer.body.code).toBe(210);
    }
    expect((await a('POST', '/1.1/login', { username, password: 'wrong-pw' })).body.code).toBe(219);
    // Locked on both nodes, even with the right password.
    expect((await b('POST', '/1.1/login', { username, password: 'right-pw' })).body.code).toBe(219);
    expect((await a('POST', '/1.1/login', { username, password: 'right-pw' })).body.code).toBe(219);
  });

  it('serve a session created on one node from the other', async () => {
    const created = await a('POST', '/1.1/users', { username: `roaming-${app.id}`, password: 'pw' });
    const token = created.body.sessionToken as string;
    const response = await fetch(`http://127.0.0.1:${(nodes[1] as HeraldProcess).port}/1.1/users/me`, {
      headers: { 'X-SVC-Id': app.id, 'X-SVC-Key': app.key, 'X-SVC-Session': token },
    });
    expect(response.status).toBe(200);
    expect(await response.json()).toMatchObject({ objectId: created.body.objectId, username: `roaming-${app.id}` });
  });
});

export type { ClusterApp };
