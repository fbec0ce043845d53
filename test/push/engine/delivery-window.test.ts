import { afterEach, expect, it } from 'vitest';
import { metricValue } from '../support/engine-idle.ts';
import { iosInstallation, startPushHerald, type PushHerald } from '../support/push-herald.ts';

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

it('keeps more deliveries in flight against a far gateway, up to the window’s max', async () => {
  const herald = await farGateway({ min: 50, max: 400 }, 40);
  expect(await metricValue(herald.h, 'herald_push_delivery_window')).toBe(50);
  let largestWindow = 0;
  const watch = setInterval(() => {
    void metricValue(herald.h, 'herald_push_delivery_window').then((size) => (largestWindow = Math.max(largestWindow, size)));
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
  // 50 in flight at 40 ms each would be 1,250 a second; the window grew towards its max, and never past it.
  expect(peakStreams).toBeGreaterThan(100);
  expect(peakStreams).toBeLessThanOrEqual(400);
  // The gauge follows the window (which may come down again as the audience runs out).
  expect(largestWindow).toBeGreaterThan(100);
  expect(largestWindow).toBeLessThanOrEqual(400);
}, 120_000);

it('never has more in flight than a fixed window', async () => {
  const herald = await farGateway({ min: 50, max: 50 }, 5);
  const res = await herald.send({ data: { alert: 'Next door' } });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  expect(await herald.settled(res.body.objectId, 60_000)).toMatchObject({ status: 'done', devices, successes: devices });
  expect(herald.fakes.apns.stats.peakStreams).toBe(50);
  expect(await metricValue(herald.h, 'herald_push_delivery_window')).toBe(50);
}, 120_000);

it('refuses a window whose min is above its max', async () => {
  await expect(startPushHerald({ engine: { deliveryWindow: { min: 500, max: 300 } } })).rejects.toThrow(/deliveryWindow\.min must not be above deliveryWindow\.max/);
});
