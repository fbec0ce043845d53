import { afterAll, beforeAll, expect, it } from 'vitest';
import { deviceToken } from '../../support/gateways/gateway-fixtures.ts';
import { startPushHerald, type PushHerald } from '../support/push-herald.ts';
import { watchSchedulerRounds } from '../support/scheduler-rounds.ts';

let p: PushHerald;
let rounds: ReturnType<typeof watchSchedulerRounds>;
beforeAll(async () => {
  p = await startPushHerald();
  rounds = watchSchedulerRounds(p.h.herald.runtime.store.scheduled);
});
afterAll(async () => {
  rounds?.restore();
  await p?.close();
});

const minute = 60_000;
const at = (ms: number) => new Date(ms).toISOString();

async function scheduledList(): Promise<Record<string, unknown>[]> {
  const res = await p.h.request('GET', '/1.1/scheduledPushMessages', { master: true });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body.results as Record<string, unknown>[];
}

it('sends a push whose push_time is under a minute away at once', async () => {
  await p.saveInstallation({ deviceType: 'ios', deviceToken: deviceToken(1), channels: ['soon'] });
  const res = await p.send({ channels: ['soon'], data: { alert: 'Now' }, push_time: at(p.clock.now() + 50_000) });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  expect(['in-queue', 'done']).toContain((await p.record(res.body.objectId))?.status);
  // Delivered without the clock moving.
  await p.fakes.apns.waitForDeliveries(1);
  expect(await p.settled(res.body.objectId)).toMatchObject({ status: 'done', successes: 1, push_time: null });
  expect((await scheduledList()).map((entry) => (entry.push_msg as Record<string, unknown>).id)).not.toContain(res.body.objectId);
});

it('lists a later push as scheduled, delivers it once the clock passes its push_time, then forgets it', async () => {
  await p.saveInstallation({ deviceType: 'ios', deviceToken: deviceToken(2), channels: ['later'] });
  const pushTime = p.clock.now() + 10 * minute;
  const data = { alert: 'Later', badge: 2 };
  const res = await p.send({ channels: ['later'], data, push_time: at(pushTime), notification_id: 'later1' });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  expect(await p.record(res.body.objectId)).toMatchObject({ status: 'scheduled', push_time: at(pushTime), notificationId: 'later1' });

  const entry = (await scheduledList()).find((item) => (item.push_msg as Record<string, unknown>).id === res.body.objectId);
  expect(entry).toEqual({
    id: expect.any(Number),
    expire_time: pushTime,
    createdAt: res.body.createdAt,
    push_msg: {
      id: res.body.objectId,
      notificationId: 'later1',
      'app-id': p.h.app.id,
      'api-version': '1.1',
      prod: 'prod',
      msg: data,
      where: { channels: { $in: ['later'] } },
    },
  });

  p.clock.advance(9 * minute);
  await rounds.completed();
  expect(p.fakes.apns.deliveriesTo(deviceToken(2))).toHaveLength(0);
  expect(await scheduledList()).toContainEqual(entry);

  p.clock.advance(minute + 1);
  await expect.poll(() => p.fakes.apns.deliveriesTo(deviceToken(2)).length, { timeout: 10_000, message: 'deliveries to device 2' }).toBe(1);
  expect(await p.settled(res.body.objectId)).toMatchObject({ status: 'done', devices: 1, successes: 1 });
  expect(await scheduledList()).not.toContainEqual(entry);
});

it('schedules a device push too, with its devices in push_msg', async () => {
  const pushTime = p.clock.now() + 5 * minute;
  const res = await p.sendToDevices({ device_type: 'ios', device_ids: [deviceToken(3)], data: { alert: 'Listed later' }, push_time: at(pushTime) });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  const entry = (await scheduledList()).find((item) => (item.push_msg as Record<string, unknown>).id === res.body.objectId);
  expect(entry?.push_msg).toMatchObject({ device_type: 'ios', device_ids: [deviceToken(3)], msg: { alert: 'Listed later' } });
  p.clock.advance(5 * minute);
  await expect.poll(() => p.fakes.apns.deliveriesTo(deviceToken(3)).length, { timeout: 10_000, message: 'deliveries to device 3' }).toBe(1);
  expect(await p.settled(res.body.objectId)).toMatchObject({ successes: 1 });
});

it('cancels a waiting push: {} answered, record gone, nothing ever delivered', async () => {
  await p.saveInstallation({ deviceType: 'ios', deviceToken: deviceToken(4), channels: ['cancelled'] });
  const res = await p.send({ channels: ['cancelled'], data: { alert: 'Never' }, push_time: at(p.clock.now() + 3 * minute) });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  const entry = (await scheduledList()).find((item) => (item.push_msg as Record<string, unknown>).id === res.body.objectId);
  expect(typeof entry?.id).toBe('number');

  const cancelled = await p.h.request('DELETE', `/1.1/scheduledPushMessages/${String(entry?.id)}`, { master: true });
  expect(cancelled.status).toBe(200);
  expect(cancelled.body).toEqual({});
  expect(await p.record(res.body.objectId)).toBeNull();
  expect(await scheduledList()).not.toContainEqual(entry);

  p.clock.advance(4 * minute);
  await rounds.completed();
  expect(p.fakes.apns.log.requestsTo(deviceToken(4))).toHaveLength(0);

  const again = await p.h.request('DELETE', `/1.1/scheduledPushMessages/${String(entry?.id)}`, { master: true });
  expect(again.status).toBe(404);
  expect(again.body.code).toBe(101);
});

it('cancels a waiting push through DELETE /1.1/notifications/<notification_id> too', async () => {
  await p.saveInstallation({ deviceType: 'ios', deviceToken: deviceToken(5), channels: ['cancelled-by-id'] });
  const res = await p.send({ channels: ['cancelled-by-id'], data: { alert: 'Never either' }, push_time: at(p.clock.now() + 2 * minute), notification_id: 'bynid1' });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  const listed = await p.h.request('GET', '/1.1/notifications/bynid1', { master: true });
  expect(listed.body).toMatchObject({ status: 'scheduled', objectId: res.body.objectId });

  const deleted = await p.h.request('DELETE', '/1.1/notifications/bynid1', { master: true });
  expect(deleted.status).toBe(200);
  expect(deleted.body).toEqual({});
  expect((await scheduledList()).map((entry) => (entry.push_msg as Record<string, unknown>).id)).not.toContain(res.body.objectId);

  p.clock.advance(3 * minute);
  await rounds.completed();
  expect(p.fakes.apns.log.requestsTo(deviceToken(5))).toHaveLength(0);
});

it('answers 404 with code 101 for an unknown id', async () => {
  for (const id of ['12345', 'not-a-number']) {
    const res = await p.h.request('DELETE', `/1.1/scheduledPushMessages/${id}`, { master: true });
    expect(res.status).toBe(404);
    expect(res.body.code).toBe(101);
  }
});

it('needs the master key to list or cancel', async () => {
  expect((await p.h.request('GET', '/1.1/scheduledPushMessages')).status).toBe(403);
  expect((await p.h.request('DELETE', '/1.1/scheduledPushMessages/1')).status).toBe(403);
});
