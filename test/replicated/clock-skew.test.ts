import { randomBytes } from 'node:crypto';
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApiClient } from '../cluster/api-client.ts';
import { expectExactlyOnce } from '../cluster/delivery-check.ts';
import { audienceOf, makeFleet } from '../cluster/device-fleet.ts';
import { PushCluster, type ClusterSettings } from '../cluster/push-cluster.ts';
import type { DeliveryTagger } from '../support/gateways/delivery-log.ts';
import { DeliveryTimeline } from '../support/delivery-timeline.ts';
import { clusterClient, replicatedBackends } from './support/replicated-backends.ts';
import { seedFleetInStore } from './support/store-seed.ts';

/**
 * Herald nodes whose clocks disagree by minutes, on the three-node cluster.
 * Plain writes carry the writing node's clock (the driver's client-side
 * timestamps) and Cassandra keeps, of two writes to one cell, the one with
 * the larger timestamp; so a later write from a node whose clock is behind
 * would lose to an earlier one from a node ahead. api-2 runs with its clock
 * 90 s ahead (libfaketime), and each test makes the later of two writes come
 * from a node 90 s behind the earlier one's; sender-2 runs 45 s ahead while
 * a flow_control push is sent. (A sender's clock also dates its gateway
 * credentials: one ahead by more than a minute has its FCM access tokens
 * refused, as Google takes no assertion issued in its future and the fake
 * FCM none issued over 60 s ahead; one behind finds the fakes' certificates,
 * issued when the run began, not yet valid.)
 */

/** Where Debian's package puts the library: under the machine's multiarch directory. */
const libfaketime = libfaketimePath();
const skewSeconds = 90;
const ahead = { LD_PRELOAD: libfaketime, FAKETIME: `+${skewSeconds}s`, FAKETIME_DONT_FAKE_MONOTONIC: '1' };
const senderSkewSeconds = 45;
const senderAhead = { ...ahead, FAKETIME: `+${senderSkewSeconds}s` };

const settings: ClusterSettings = {
  sliceSize: 100,
  senderConcurrency: 4,
  installationShards: 8,
  pushTaskPartitions: 4,
  sessionTimeoutMs: 6000,
  retry: { maxAttempts: 8, baseDelayMs: 200, maxDelayMs: 3000 },
};
const markerPattern = /"marker":"([A-Za-z0-9]{1,16})"/;
const timeline = new DeliveryTimeline();
const tagger: DeliveryTagger = timeline.wrap((body) => markerPattern.exec(body.toString('latin1'))?.[1]);

function report(line: string): void {
  process.stdout.write(`clock-skew: ${line}\n`);
}

describe(`Herald nodes whose clocks are ${skewSeconds} s apart, on three Cassandra nodes`, () => {
  let cluster: PushCluster;
  const fleet = makeFleet(2000, 500_000);
  /** The node whose clock is right, and the one ahead of it. */
  let right: ApiClient;
  let fast: ApiClient;

  beforeAll(async () => {
    // libfaketime is installed with the Debian package faketime (.ci/run); without it this file cannot say anything.
    expect(existsSync(libfaketime), `no ${libfaketime} (apt-get install faketime)`).toBe(true);
    cluster = await PushCluster.start({ tagger, settings, backends: replicatedBackends(), nodeEnv: { 'api-2': ahead, 'sender-2': senderAhead } });
    right = cluster.api('api-1');
    fast = cluster.api('api-2');
    const saved = await seedFleetInStore(cluster, fleet, 48);
    report(`stored ${saved.saved} installations in ${saved.seconds.toFixed(1)} s`);
  }, 600_000);

  afterAll(async () => {
    await cluster?.close();
  }, 120_000);

  it(`runs api-2 ${skewSeconds} s ahead of api-1`, async () => {
    const created = await Promise.all(
      [right, fast].map((node) => node.request('POST', '/1.1/users', { body: { username: `clock-${randomBytes(4).toString('hex')}`, password: 'clock-pw' } })),
    );
    const [onRight, onFast] = created.map((answer) => Date.parse(String(answer.body.createdAt))) as [number, number];
    expect(onFast - onRight).toBeGreaterThan((skewSeconds - 5) * 1000);
  });

  it('keeps the channels of the latest save of an installation, saved in turn by the node ahead and the node behind', async () => {
    const installationId = `skew-${randomBytes(4).toString('hex')}`;
    const channel = (n: number) => `skew${n}${installationId.slice(5)}`;
    const nodes = [fast, right, fast, right, right, fast, right];
    let objectId: string | undefined;
    for (const [n, node] of nodes.entries()) {
      const body = { deviceType: 'android', installationId, registrationId: `fcm-${installationId}`, vendor: 'fcm', channels: [channel(n)] };
      const saved = await node.request('POST', '/1.1/installations', { body });
      expect([200, 201], JSON.stringify(saved.body)).toContain(saved.status);
      objectId ??= String(saved.body.objectId);
      // The index answers the latest save's channel, and none of the earlier ones, whichever clock wrote what.
      for (let m = 0; m <= n; m++) {
        const found = await right.request('GET', `/1.1/installations?where=${encodeURIComponent(JSON.stringify({ channels: channel(m) }))}`, { master: true });
        expect(
          (found.body.results as { objectId: string }[]).map((result) => result.objectId),
          `channel ${m} after save ${n} (by the node ${node === fast ? 'ahead' : 'behind'})`,
        ).toEqual(m === n ? [objectId] : []);
      }
    }
  }, 120_000);

  it('keeps the latest of a user’s updates made in turn on both nodes', async () => {
    const created = await fast.request('POST', '/1.1/users', { body: { username: `skew-${randomBytes(4).toString('hex')}`, password: 'skew-pw' } });
    expect(created.status).toBe(201);
    const session = String(created.body.sessionToken);
    for (const [n, node] of [right, fast, right, right, fast, right].entries()) {
      const updated = await node.request('PUT', `/1.1/users/${String(created.body.objectId)}`, { body: { nickname: `v${n}` }, session });
      expect(updated.status, JSON.stringify(updated.body)).toBe(200);
      const read = await (n % 2 === 0 ? fast : right).request('GET', '/1.1/users/me', { session });
      expect(read.body.nickname).toBe(`v${n}`);
    }
  });

  it('removes a scheduled push’s due-time row when the node behind cancels what the node ahead scheduled', async () => {
    const marker = `skewsched${randomBytes(2).toString('hex')}`;
    // At least a minute ahead by the scheduling node's clock, which runs 90 s ahead.
    const pushTime = Date.now() + (skewSeconds + 120) * 1000;
    const scheduled = await fast.push({ channels: ['news'], push_time: new Date(pushTime).toISOString(), data: { alert: 'Later', marker }, notification_id: marker });
    expect(scheduled.status, JSON.stringify(scheduled.body)).toBe(201);
    const listed = await right.request('GET', '/1.1/scheduledPushMessages', { master: true });
    const entry = (listed.body.results as { id: number; push_msg: { notificationId?: string } }[]).find((result) => result.push_msg.notificationId === marker);
    expect(entry, JSON.stringify(listed.body)).toBeDefined();
    expect(await dueRows(cluster, entry!.id)).toBe(1);
    const cancelled = await right.request('DELETE', `/1.1/scheduledPushMessages/${entry!.id}`, { master: true });
    expect(cancelled.status, JSON.stringify(cancelled.body)).toBe(200);
    // Its delete wins though its clock is 90 s behind the write's: the row is gone, not left for every scheduler pass.
    expect(await dueRows(cluster, entry!.id)).toBe(0);
  });

  it('delivers a flow_control push once to each device with one sender’s clock ahead, and never more than 1.1 × the rate in a second', async () => {
    const marker = `skewpace${randomBytes(2).toString('hex')}`;
    timeline.watch(marker);
    // The fleet's devices only (they have appVersion 4.12.0), not the installations the tests above saved.
    const answer = await right.push({ where: { appVersion: '4.12.0' }, flow_control: 1000, data: { alert: 'Paced', marker }, notification_id: marker });
    expect(answer.status, JSON.stringify(answer.body)).toBe(201);
    await expectExactlyOnce(marker, audienceOf(fleet), { api: () => right, fakes: cluster.fakes, timeoutMs: 120_000 });
    const busiest = timeline.busiestSecond(marker);
    report(`flow_control 1000/s with sender-2 ${senderSkewSeconds} s ahead: busiest second ${busiest.most} (${busiest.stamped} by stamps alone, this process blind up to ${busiest.blindMs.toFixed(0)} ms), ${busiest.deliveries} in ${(busiest.spanMs / 1000).toFixed(2)} s`);
    expect(busiest.most).toBeLessThanOrEqual(1100);
    cluster.assertRunning();
  }, 180_000);
});

/** Rows of `scheduled_pushes_due` naming the scheduled push `id`, read at ALL. */
async function dueRows(cluster: PushCluster, id: number): Promise<number> {
  const { types } = await import('cassandra-driver');
  const client = clusterClient();
  try {
    await client.connect();
    let rows = 0;
    const result = await client.execute(`SELECT app_id, id FROM ${cluster.keyspace}.scheduled_pushes_due`, [], { consistency: types.consistencies.all, fetchSize: 1000 });
    for await (const row of result) if (row.get('app_id') === cluster.app.id && Number(row.get('id')) === id) rows++;
    return rows;
  } finally {
    await client.shutdown();
  }
}

function libfaketimePath(): string {
  const found = readdirSync('/usr/lib', { withFileTypes: true })
    .filter((entry) => entry.isDirectory())
    .map((entry) => join('/usr/lib', entry.name, 'faketime/libfaketime.so.1'))
    .find((path) => existsSync(path));
  return found ?? '/usr/lib/x86_64-linux-gnu/faketime/libfaketime.so.1';
}
