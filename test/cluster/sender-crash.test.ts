import { randomBytes } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { systemClock } from '../../src/core/clock.ts';
import { newObjectId } from '../../src/core/ids.ts';
import { CassandraStore } from '../../src/store/cassandra/cassandra-store.ts';
import { deviceToken } from '../support/gateways/gateway-fixtures.ts';
import { startHeraldProcess, type HeraldProcess } from '../support/herald-process.ts';
import { startPushGatewayFakes, type PushGatewayFakes } from '../support/push-gateways.ts';
import { serviceEndpoints } from '../support/service-endpoints.ts';
import { deleteKafkaTopics } from '../support/test-backends.ts';
import { cassandraTestOptions, dropKeyspace, testKeyspace } from '../store/cassandra-test-keyspace.ts';
import { nodeClient } from './cluster-env.ts';

const devices = 2000;
const sliceSize = 50;
const senderConcurrency = 2;
const shards = 8;

/**
 * A sender process killed with SIGKILL in the middle of a push: the Kafka
 * group gives its partitions to the other sender, which finishes the work.
 * Every device gets the message, each slice the dead sender had in hand is
 * sent again at most once (at most one slice per partition it worked on),
 * and the push record's counters are exact.
 */
describe('a sender crashing mid-push', () => {
  const keyspace = testKeyspace();
  const topicPrefix = `crash${randomBytes(4).toString('hex')}.`;
  const app = { id: `crash${randomBytes(3).toString('hex')}`, key: randomBytes(12).toString('hex'), masterKey: randomBytes(16).toString('hex') };
  let fakes: PushGatewayFakes;
  const processes: HeraldProcess[] = [];

  beforeAll(async () => {
    // Slow answers keep the push running long enough to kill a sender in the middle of it.
    fakes = await startPushGatewayFakes({ apns: { defaultAnswer: { status: 200, delayMs: 300 } } });
    const dir = mkdtempSync(join(tmpdir(), 'herald-crash-'));
    const configFile = join(dir, 'herald.json');
    writeFileSync(
      configFile,
      JSON.stringify({
        logLevel: 'info',
        dataDir: dir,
        store: { kind: 'cassandra', contactPoints: serviceEndpoints.cassandra.contactPoints, localDataCenter: 'datacenter1', keyspace },
        coordination: { kind: 'redis', url: serviceEndpoints.redis.url, keyPrefix: `${topicPrefix}:` },
        bus: { kind: 'kafka', brokers: serviceEndpoints.kafka.brokers, topicPrefix, sessionTimeoutMs: 6000, topics: { pushRequests: 2, pushTasks: 4 } },
        push: fakes.engine({ installationShards: shards, sliceSize, senderConcurrency }),
        apps: [{ ...app, push: fakes.appPush }],
      }),
    );
    const env = { HERALD_CONFIG: configFile };
    // The first node migrates the keyspace; the others find it current.
    processes.push(await startHeraldProcess({ ...env, HERALD_ROLE: 'api,fanout' }));
    const senders = await Promise.all([0, 1].map(() => startHeraldProcess({ ...env, HERALD_ROLE: 'sender', HERALD_INTERNAL_PORT: '0' })));
    processes.push(...senders);

    const store = await CassandraStore.open({ ...cassandraTestOptions(keyspace), classes: {}, clock: systemClock, installationShards: shards });
    try {
      const now = new Date().toISOString();
      const installations = Array.from({ length: devices }, (_, n) => ({
        objectId: newObjectId(),
        createdAt: now,
        updatedAt: now,
        deviceType: 'ios',
        deviceToken: deviceToken(n),
      }));
      await store.installations.insertMany(app.id, installations);
    } finally {
      await store.close();
    }
  }, 240_000);

  afterAll(async () => {
    for (const process of processes) process.kill();
    await fakes?.close();
    await deleteKafkaTopics(topicPrefix).catch(() => undefined);
    await dropKeyspace(keyspace);
  }, 120_000);

  it('delivers to every device once the other sender takes over, with duplicates bounded by one slice per partition', async () => {
    const [api, victim, survivor] = processes as [HeraldProcess, HeraldProcess, HeraldProcess];
    const call = nodeClient(api.port, app);
    const sent = await call('POST', '/1.1/push', { data: { alert: 'Survive this' } }, { 'X-SVC-Key': `${app.masterKey},master` });
    expect(sent.status).toBe(201);

    // Kill the victim while the push is well under way and it has slices in hand.
    await expect
      .poll(async () => fakes.apns.log.deliveryCount >= 300 && (await inFlight(victim)) > 0, { timeout: 60_000, interval: 20 })
      .toBe(true);
    victim.kill();
    const deliveredBeforeKill = fakes.apns.log.deliveryCount;

    await expect.poll(() => fakes.apns.log.distinctTokens, { timeout: 120_000, interval: 250, message: 'every device reached after the crashed sender\'s partitions moved' }).toBe(devices);
    expect(deliveredBeforeKill).toBeGreaterThanOrEqual(300);
    expect(deliveredBeforeKill).toBeLessThan(devices);
    expect(fakes.apns.log.duplicates).toBeLessThanOrEqual(sliceSize * senderConcurrency);
    expect(await inFlight(survivor)).toBeGreaterThanOrEqual(0);

    await expect
      .poll(async () => (await call('GET', `/1.1/tables/Notifications/${String(sent.body.objectId)}`)).body.status, { timeout: 60_000, interval: 250 })
      .toBe('done');
    const record = await call('GET', `/1.1/tables/Notifications/${String(sent.body.objectId)}`);
    expect(record.body).toMatchObject({ devices, successes: devices, errors: 0, iosSuccesses: devices });
  }, 240_000);
});

async function inFlight(node: HeraldProcess): Promise<number> {
  const text = await (await fetch(`http://127.0.0.1:${node.internalPort}/metrics`)).text();
  const line = text.split('\n').find((row) => row.startsWith('herald_push_tasks_in_flight '));
  return Number(line?.split(' ')[1] ?? 0);
}
