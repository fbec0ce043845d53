import { afterAll, beforeAll, expect, it } from 'vitest';
import { flowControlBurst } from '../../../src/push/sender/flow-control-burst.ts';
import { deviceToken } from '../../support/gateways/gateway-fixtures.ts';
import { waitForIdleEngine } from '../support/engine-idle.ts';
import { iosInstallation, startPushHerald, uniqueName, type PushHerald } from '../support/push-herald.ts';

let p: PushHerald;
beforeAll(async () => {
  p = await startPushHerald({ engine: { sliceSize: 100 } });
});
afterAll(async () => {
  await p?.close();
});

it('counts pushes that share a notification_id together', async () => {
  const notificationId = uniqueName('n');
  await p.saveInstallation({ deviceType: 'ios', deviceToken: deviceToken(1), channels: ['nid-a'] });
  await p.saveInstallation({ deviceType: 'ios', deviceToken: deviceToken(2), channels: ['nid-b'] });
  await p.saveInstallation({ deviceType: 'android', installationId: 'nid-android', registrationId: 'fcm-nid', vendor: 'fcm', channels: ['nid-b'] });
  const first = await p.send({ channels: ['nid-a'], data: { alert: 'Part one' }, notification_id: notificationId });
  p.clock.advance(1000);
  const second = await p.send({ channels: ['nid-b'], data: { alert: 'Part two' }, notification_id: notificationId });
  expect(first.status).toBe(201);
  expect(second.status).toBe(201);
  await p.settled(first.body.objectId);
  await p.settled(second.body.objectId);

  const res = await p.h.request('GET', `/1.1/notifications/${notificationId}`, { master: true });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  expect(res.body).toMatchObject({
    notificationId,
    status: 'done',
    devices: 3,
    successes: 3,
    iosSuccesses: 2,
    androidSuccesses: 1,
    errors: 0,
    pushes: [second.body.objectId, first.body.objectId],
  });
  // Each record still counts only its own.
  expect(await p.record(first.body.objectId)).toMatchObject({ notificationId, devices: 1, successes: 1 });
});

it('answers 404 with code 101 for an unknown notification_id, and needs the master key', async () => {
  const res = await p.h.request('GET', '/1.1/notifications/nosuchpush', { master: true });
  expect(res.status).toBe(404);
  expect(res.body.code).toBe(101);
  expect((await p.h.request('DELETE', '/1.1/notifications/nosuchpush', { master: true })).body.code).toBe(101);
  expect((await p.h.request('GET', '/1.1/notifications/nosuchpush')).status).toBe(403);
  expect((await p.h.request('DELETE', '/1.1/notifications/nosuchpush')).status).toBe(403);
});

it('cancels a push still in the queue: nothing more reaches the gateway', async () => {
  const channel = uniqueName('queued');
  const devices = Array.from({ length: 3000 }, (_, n) => 100_000 + n);
  await p.seed(devices.map((n) => iosInstallation(n, p.clock.now(), { channels: [channel] })));
  const reached = () => devices.filter((n) => p.fakes.apns.log.countOf(deviceToken(n)) > 0).length;
  const notificationId = uniqueName('n');
  // 1000 a second, and the engine's clock stands still: the bucket's burst goes out, the rest waits.
  const res = await p.send({ channels: [channel], data: { alert: 'Sale' }, flow_control: 1000, notification_id: notificationId });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  const burst = flowControlBurst(1000);
  await expect.poll(reached, { timeout: 30_000, message: 'devices reached' }).toBe(burst);
  expect(await p.record(res.body.objectId)).toMatchObject({ status: 'in-queue' });

  const deleted = await p.h.request('DELETE', `/1.1/notifications/${notificationId}`, { master: true });
  expect(deleted.status, JSON.stringify(deleted.body)).toBe(200);
  expect(deleted.body).toEqual({});
  expect(await p.record(res.body.objectId)).toBeNull();
  expect((await p.h.request('GET', `/1.1/notifications/${notificationId}`, { master: true })).status).toBe(404);

  // Time enough for the rest, were it still wanted.
  for (let second = 0; second < 5; second += 1) p.clock.advance(1000);
  await waitForIdleEngine(p.h);
  expect(reached()).toBe(burst);
}, 90_000);
