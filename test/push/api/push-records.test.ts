import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { deviceToken } from '../../support/gateways/gateway-fixtures.ts';
import { dayMs, startPushHerald, uniqueName, type PushHerald } from '../support/push-herald.ts';

let p: PushHerald;
beforeAll(async () => {
  p = await startPushHerald();
});
afterAll(async () => {
  await p?.close();
});

async function list(params: Record<string, string>, master = true) {
  return p.h.request('GET', `/1.1/notifications?${new URLSearchParams(params).toString()}`, { master });
}

describe('one record', () => {
  it('reads in-queue while the push is being sent, then done with exact counters', async () => {
    const channel = uniqueName('mix');
    for (const n of [1, 2, 3, 4]) await p.saveInstallation({ deviceType: 'ios', deviceToken: deviceToken(n), channels: [channel] });
    await p.saveInstallation({ deviceType: 'android', installationId: 'rec-a1', registrationId: 'fcm-rec-a1', vendor: 'fcm', channels: [channel] });
    await p.saveInstallation({ deviceType: 'android', installationId: 'rec-a2', channels: [channel] });
    p.fakes.apns.respondTo(deviceToken(4), [{ status: 400, reason: 'BadDeviceToken' }]);
    // Device 1's first three requests get no answer until the engine gives up on each (2 s) and sends again: the push
    // stays in-queue for about 6 s, long enough to be read so even on a loaded machine, and the fourth send delivers it.
    p.fakes.apns.respondTo(deviceToken(1), [{ stall: true }, { stall: true }, { stall: true }]);
    const requests = p.fakes.apns.log.requestCount;

    const data = { alert: 'Counted', title: 'Records' };
    const res = await p.send({ channels: [channel], data, notification_id: 'records1', expiration_interval: 3600 });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    await p.fakes.apns.waitForRequests(requests + 4);
    const running = await p.record(res.body.objectId);
    expect(running?.status).toBe('in-queue');

    const record = await p.settled(res.body.objectId);
    expect(record).toEqual({
      objectId: res.body.objectId,
      createdAt: res.body.createdAt,
      updatedAt: expect.any(String),
      notificationId: 'records1',
      status: 'done',
      data,
      where: { channels: { $in: [channel] } },
      prod: 'prod',
      push_time: null,
      expiration_time: new Date(Date.parse(res.body.createdAt) + 3_600_000).toISOString(),
      devices: 6,
      successes: 4,
      iosSuccesses: 3,
      androidSuccesses: 1,
      invalidTokens: 1,
      errors: 1,
      errorReasons: { BadDeviceToken: 1, NoRegistrationId: 1 },
    });
    expect(p.fakes.apns.deliveriesTo(deviceToken(1))).toHaveLength(1);
  });

  it('is read with the app key by the objectId the push answered; unknown ones are 404 (101)', async () => {
    const res = await p.sendToDevices({ device_type: 'ios', device_ids: [deviceToken(10)], data: { alert: 'Mine' } });
    expect(res.status).toBe(201);
    await p.settled(res.body.objectId);
    const read = await p.h.request('GET', `/1.1/tables/Notifications/${res.body.objectId}`);
    expect(read.status).toBe(200);
    expect(read.body.objectId).toBe(res.body.objectId);
    const missing = await p.h.request('GET', '/1.1/tables/Notifications/0123456789abcdef01234567');
    expect(missing.status).toBe(404);
    expect(missing.body.code).toBe(101);
  });
});

describe('the list', () => {
  const tag = uniqueName('list');
  const objectIds: string[] = [];

  beforeAll(async () => {
    for (let n = 0; n < 3; n += 1) {
      p.clock.advance(1000);
      const res = await p.sendToDevices({ device_type: 'ios', device_ids: [deviceToken(20 + n)], data: { alert: `List ${n}`, tag } });
      expect(res.status).toBe(201);
      objectIds.push(res.body.objectId as string);
    }
    for (const objectId of objectIds) await p.settled(objectId);
  });

  it('needs the master key', async () => {
    const res = await list({}, false);
    expect(res.status).toBe(403);
  });

  it('answers the newest first, with where, limit and count', async () => {
    const res = await list({ where: JSON.stringify({ 'data.tag': tag }), count: '1', limit: '2' });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.count).toBe(3);
    expect(res.body.results.map((record: { objectId: string }) => record.objectId)).toEqual([objectIds[2], objectIds[1]]);
    expect(res.body.results[0]).toMatchObject({ status: 'done', devices: 1, successes: 1, data: { tag } });
    expect(res.body.results[0]._spec).toBeUndefined();
    expect(res.body.results[0].expectedTasks).toBeUndefined();
  });

  it('follows order, and skip', async () => {
    const res = await list({ where: JSON.stringify({ 'data.tag': tag }), order: 'createdAt', skip: '1' });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.results.map((record: { objectId: string }) => record.objectId)).toEqual([objectIds[1], objectIds[2]]);
  });

  it('filters on the status', async () => {
    const res = await list({ where: JSON.stringify({ 'data.tag': tag, status: 'done' }), count: '1', limit: '0' });
    expect(res.body).toEqual({ results: [], count: 3 });
  });
});

describe('retention', () => {
  let retained: PushHerald;
  beforeAll(async () => {
    // Kept on SQLite in every run: Cassandra expires records by TTL on its own clock, which a test cannot move.
    retained = await startPushHerald({ store: { kind: 'sqlite' }, engine: { retentionDays: 1, sweepIntervalMs: 60_000 } });
  });
  afterAll(async () => {
    await retained?.close();
  });

  it('purges records older than the retention time on the sweep', async () => {
    const old = await retained.sendToDevices({ device_type: 'ios', device_ids: [deviceToken(30)], data: { alert: 'Old' } });
    await retained.settled(old.body.objectId);
    retained.clock.advance(dayMs - 60_000);
    const recent = await retained.sendToDevices({ device_type: 'ios', device_ids: [deviceToken(31)], data: { alert: 'Recent' } });
    await retained.settled(recent.body.objectId);

    retained.clock.advance(2 * 60_000);
    await expect.poll(async () => retained.record(old.body.objectId), { timeout: 10_000, message: 'the record past its retention' }).toBeNull();
    expect(await retained.record(recent.body.objectId)).toMatchObject({ status: 'done', successes: 1 });
    expect(await retained.recordCount()).toBe(1);
  });
});
