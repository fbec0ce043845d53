import { afterEach, expect, it } from 'vitest';
import { metricValue } from '../support/engine-idle.ts';
import { androidInstallation, iosInstallation, startPushHerald, type PushHerald } from '../support/push-herald.ts';

const devices = 6000;

let p: PushHerald | undefined;
afterEach(async () => {
  await p?.close();
  p = undefined;
});

/** A Herald whose gateway answers `latencyMs` late, with `devices` iOS installations in slices big enough to fill any window. */
async function farGateway(window: { min: number; max: number }, latencyMs: number): Promise<PushHerald> {
  const herald = await startPushHerald({ role: 'api,fanout,sender', engine: { installationShards: 4, sliceSize: 2000, deliveryWindow: window } });
  p = herald;
  const now = herald.clock.now();
  await herald.seed(Array.from({ length: devices }, (_, n) => iosInstallation(n, now)));
  herald.fakes.apns.setDefaultAnswer({ status: 200, delayMs: latencyMs });
  return herald;
}

const apnsWindow = { gateway: 'apns' };
const fcmWindow = { gateway: 'fcm' };

it('keeps more deliveries in flight against a far gateway, up to the window’s max, in that gateway’s window only', async () => {
  const herald = await farGateway({ min: 50, max: 400 }, 100);
  expect(await metricValue(herald.h, 'herald_push_delivery_window', apnsWindow)).toBe(50);
  expect(await metricValue(herald.h, 'herald_push_delivery_window', fcmWindow)).toBe(50);
  let largestWindow = 0;
  let largestFcmWindow = 0;
  const watch = setInterval(() => {
    void metricValue(herald.h, 'herald_push_delivery_window', apnsWindow).then((size) => (largestWindow = Math.max(largestWindow, size)));
    void metricValue(herald.h, 'herald_push_delivery_window', fcmWindow).then((size) => (largestFcmWindow = Math.max(largestFcmWindow, size)));
  }, 10);
  const res = await herald.send({ data: { alert: 'Across the ocean' } });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  try {
    expect(await herald.settled(res.body.objectId, 60_000)).toMatchObject({ status: 'done', devices, successes: devices, errors: 0 });
  } finally {
    clearInterval(watch);
  }
  expect(herald.fakes.apns.log.deliveryCount).toBe(devices);
  const { peakStreams } = herald.fakes.apns.stats;
  // 50 in flight at 100 ms each would be 500 a second; the window grew towards its max, and never past it.
  expect(peakStreams).toBeGreaterThan(100);
  expect(peakStreams).toBeLessThanOrEqual(400);
  // The gauge follows the window (which may come down again as the audience runs out).
  expect(largestWindow).toBeGreaterThan(100);
  expect(largestWindow).toBeLessThanOrEqual(400);
  // FCM had nothing to send: its window is its own, and stayed at min.
  expect(largestFcmWindow).toBe(50);
}, 120_000);

it('sizes FCM’s window from FCM’s answers, even right after a push to a nearer APNs, leaving APNs’s as it was', async () => {
  const herald = await startPushHerald({ role: 'api,fanout,sender', engine: { installationShards: 4, sliceSize: 2000, deliveryWindow: { min: 50, max: 400 } } });
  p = herald;
  const now = herald.clock.now();
  const ios = 2000;
  const android = 6000;
  await herald.seed(Array.from({ length: ios }, (_, n) => iosInstallation(n, now)));
  await herald.seed(Array.from({ length: android }, (_, n) => androidInstallation(n, now)));
  // APNs next door first: a window that kept its latency from this push would take FCM's for a queue and stay at min.
  const first = await herald.send({ where: { deviceType: 'ios' }, data: { alert: 'Next door' } });
  expect(first.status, JSON.stringify(first.body)).toBe(201);
  expect(await herald.settled(first.body.objectId, 60_000)).toMatchObject({ status: 'done', successes: ios });
  const apnsBefore = await metricValue(herald.h, 'herald_push_delivery_window', apnsWindow);
  herald.fakes.fcm.setDefaultAnswer({ status: 200, delayMs: 100 });
  let largestFcmWindow = 0;
  const apnsSizes = new Set<number>();
  const watch = setInterval(() => {
    void metricValue(herald.h, 'herald_push_delivery_window', fcmWindow).then((size) => (largestFcmWindow = Math.max(largestFcmWindow, size)));
    void metricValue(herald.h, 'herald_push_delivery_window', apnsWindow).then((size) => apnsSizes.add(size));
  }, 10);
  const res = await herald.send({ where: { deviceType: 'android' }, data: { alert: 'Across the ocean' } });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  try {
    expect(await herald.settled(res.body.objectId, 60_000)).toMatchObject({ status: 'done', devices: android, successes: android, errors: 0 });
  } finally {
    clearInterval(watch);
  }
  expect(largestFcmWindow).toBeGreaterThan(100);
  expect(largestFcmWindow).toBeLessThanOrEqual(400);
  expect([...apnsSizes]).toEqual([apnsBefore]);
}, 120_000);

it('never has more in flight than a fixed window', async () => {
  const herald = await farGateway({ min: 50, max: 50 }, 5);
  const res = await herald.send({ data: { alert: 'Next door' } });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  expect(await herald.settled(res.body.objectId, 60_000)).toMatchObject({ status: 'done', devices, successes: devices });
  expect(herald.fakes.apns.stats.peakStreams).toBe(50);
  expect(await metricValue(herald.h, 'herald_push_delivery_window', apnsWindow)).toBe(50);
}, 120_000);

it('refuses a window whose min is above its max', async () => {
  await expect(startPushHerald({ engine: { deliveryWindow: { min: 500, max: 300 } } })).rejects.toThrow(/deliveryWindow\.min must not be above deliveryWindow\.max/);
});
