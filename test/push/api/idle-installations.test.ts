import { afterAll, beforeAll, expect, it } from 'vitest';
import { deviceToken } from '../../support/gateways/gateway-fixtures.ts';
import { androidInstallation, dayMs, iosInstallation, startPushHerald, type PushHerald } from '../support/push-herald.ts';
import { watchSchedulerRounds } from '../support/scheduler-rounds.ts';

const sweepIntervalMs = 3_600_000;
let p: PushHerald;
const channel = 'idle';
let idleIos: string;
let idleAndroid: string;
let recentIos: string;
let freshAndroid: string;

beforeAll(async () => {
  p = await startPushHerald({ engine: { sweepIntervalMs } });
  // The scheduler sweeps once at start; the devices below are written after that sweep, so only the push sees them at first.
  const rounds = watchSchedulerRounds(p.h.herald.runtime.store.scheduled);
  await rounds.completed();
  rounds.restore();
  const now = p.clock.now();
  const docs = [
    iosInstallation(1, now - 91 * dayMs, { channels: [channel] }),
    androidInstallation('idle', now - 100 * dayMs, { channels: [channel] }),
    iosInstallation(2, now - 89 * dayMs, { channels: [channel] }),
    androidInstallation('fresh', now, { channels: [channel] }),
  ];
  await p.seed(docs);
  [idleIos, idleAndroid, recentIos, freshAndroid] = docs.map((doc) => doc.objectId) as [string, string, string, string];
});
afterAll(async () => {
  await p?.close();
});

async function exists(objectId: string): Promise<boolean> {
  return (await p.h.request('GET', `/1.1/installations/${objectId}`, { master: true })).status === 200;
}

it('neither targets nor counts installations not saved for more than 90 days', async () => {
  const res = await p.send({ channels: [channel], data: { alert: 'Still there?' } });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  expect(await p.settled(res.body.objectId)).toMatchObject({ devices: 2, successes: 2, iosSuccesses: 1, androidSuccesses: 1, errors: 0 });
  expect(p.fakes.apns.log.requestsTo(deviceToken(1))).toHaveLength(0);
  expect(p.fakes.apns.deliveriesTo(deviceToken(2))).toHaveLength(1);
  expect(p.fakes.fcm.log.requestsTo('fcm-idle')).toHaveLength(0);
  expect(p.fakes.fcm.deliveriesTo('fcm-fresh')).toHaveLength(1);
  // Left out by the push's own rule: they are still stored.
  expect(await exists(idleIos)).toBe(true);
  expect(await exists(idleAndroid)).toBe(true);
});

it('leaves them out of a device-list push too, without counting them', async () => {
  const ios = await p.sendToDevices({ device_type: 'ios', device_ids: [deviceToken(1), deviceToken(2)], data: { alert: 'Listed' } });
  expect(ios.status, JSON.stringify(ios.body)).toBe(201);
  expect(await p.settled(ios.body.objectId)).toMatchObject({ devices: 1, successes: 1, errors: 0 });
  const android = await p.sendToDevices({ device_type: 'android', device_ids: ['android-idle', 'android-fresh'], data: { alert: 'Listed' } });
  expect(android.status, JSON.stringify(android.body)).toBe(201);
  expect(await p.settled(android.body.objectId)).toMatchObject({ devices: 1, successes: 1, errors: 0 });
  expect(p.fakes.apns.log.requestsTo(deviceToken(1))).toHaveLength(0);
  expect(p.fakes.apns.deliveriesTo(deviceToken(2))).toHaveLength(2);
  expect(p.fakes.fcm.log.requestsTo('fcm-idle')).toHaveLength(0);
  expect(p.fakes.fcm.deliveriesTo('fcm-fresh')).toHaveLength(2);
});

it('leaves them out of a push without where too', async () => {
  const res = await p.send({ data: { alert: 'Everyone active' } });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  expect(await p.settled(res.body.objectId)).toMatchObject({ devices: 2, successes: 2 });
});

it('removes them on the scheduler’s sweep and keeps the others', async () => {
  p.clock.advance(sweepIntervalMs);
  await expect.poll(() => exists(idleIos), { timeout: 10_000, message: 'whether the idle iOS installation still exists' }).toBe(false);
  await expect.poll(() => exists(idleAndroid), { timeout: 10_000, message: 'whether the idle Android installation still exists' }).toBe(false);
  expect(await exists(recentIos)).toBe(true);
  expect(await exists(freshAndroid)).toBe(true);
});

it('targets a device again once it is saved anew', async () => {
  await p.saveInstallation({ deviceType: 'ios', deviceToken: deviceToken(1), channels: [channel] });
  const res = await p.send({ channels: [channel], data: { alert: 'Welcome back' } });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  expect(await p.settled(res.body.objectId)).toMatchObject({ devices: 3, successes: 3 });
  expect(p.fakes.apns.deliveriesTo(deviceToken(1))).toHaveLength(1);
});
