import { afterAll, beforeAll, expect, it } from 'vitest';
import { deviceToken } from '../../support/gateways/gateway-fixtures.ts';
import { waitForIdleEngine } from '../support/engine-idle.ts';
import { startPushHerald, type PushHerald } from '../support/push-herald.ts';

let p: PushHerald;
beforeAll(async () => {
  p = await startPushHerald();
});
afterAll(async () => {
  await p?.close();
});

/** `/metrics` as samples: `name{labels}` → value. */
async function scrape(): Promise<Map<string, number>> {
  const res = await fetch(`${p.h.baseUrl}/metrics`);
  expect(res.status).toBe(200);
  const samples = new Map<string, number>();
  for (const line of (await res.text()).split('\n')) {
    if (line === '' || line.startsWith('#')) continue;
    const at = line.lastIndexOf(' ');
    samples.set(line.slice(0, at), Number(line.slice(at + 1)));
  }
  return samples;
}

/** The sum of the samples of `name` whose labels include every one of `labels`. */
function sample(samples: Map<string, number>, name: string, labels: Record<string, string> = {}): number | undefined {
  let found: number | undefined;
  for (const [key, value] of samples) {
    const match = /^([^{]+)(?:\{(.*)\})?$/.exec(key);
    if (match?.[1] !== name) continue;
    const text = match[2] ?? '';
    if (!Object.entries(labels).every(([label, wanted]) => text.includes(`${label}="${wanted}"`))) continue;
    found = (found ?? 0) + value;
  }
  return found;
}

it('counts accepted pushes, deliveries by gateway and outcome, failures by reason, gateway latency, slices in flight and consumer lag', async () => {
  const before = await scrape();
  const app = p.h.app.id;
  for (const n of [1, 2, 3]) await p.saveInstallation({ deviceType: 'ios', deviceToken: deviceToken(n), channels: ['metrics'] });
  await p.saveInstallation({ deviceType: 'android', installationId: 'm-1', registrationId: 'fcm-m-1', vendor: 'fcm', channels: ['metrics'] });
  await p.saveInstallation({ deviceType: 'android', installationId: 'm-2', channels: ['metrics'] });
  p.fakes.apns.respondTo(deviceToken(3), [{ status: 400, reason: 'BadDeviceToken' }]);
  p.fakes.apns.respondTo(deviceToken(2), [{ status: 503, reason: 'ServiceUnavailable' }]);

  const sending = performance.now();
  const now = await p.send({ channels: ['metrics'], data: { alert: 'Measured' } });
  const later = await p.send({ channels: ['metrics'], data: { alert: 'Later' }, push_time: new Date(p.clock.now() + 3_600_000).toISOString() });
  expect(now.status).toBe(201);
  expect(later.status).toBe(201);
  await p.settled(now.body.objectId);
  await waitForIdleEngine(p.h);
  const pushSeconds = (performance.now() - sending) / 1000;

  const after = await scrape();
  const grew = (name: string, labels: Record<string, string> = {}) => (sample(after, name, labels) ?? 0) - (sample(before, name, labels) ?? 0);
  expect(grew('herald_pushes_accepted_total', { app, when: 'now' })).toBe(1);
  expect(grew('herald_pushes_accepted_total', { app, when: 'scheduled' })).toBe(1);
  expect(grew('herald_push_deliveries_total', { gateway: 'apns', outcome: 'delivered' })).toBe(2);
  expect(grew('herald_push_deliveries_total', { gateway: 'apns', outcome: 'invalid-token' })).toBe(1);
  expect(grew('herald_push_deliveries_total', { gateway: 'fcm', outcome: 'delivered' })).toBe(1);
  expect(grew('herald_push_deliveries_total', { gateway: 'fcm', outcome: 'not-sent' })).toBe(1);
  expect(grew('herald_push_retries_total', { gateway: 'apns', reason: 'ServiceUnavailable' })).toBe(1);
  // The devices not delivered, by reason too.
  expect(grew('herald_push_failures_total', { gateway: 'apns', outcome: 'invalid-token', reason: 'BadDeviceToken' })).toBe(1);
  expect(grew('herald_push_failures_total', { gateway: 'fcm', outcome: 'not-sent', reason: 'NoRegistrationId' })).toBe(1);
  expect(grew('herald_push_failures_total')).toBe(2);
  // One observation per answered request: three answers for the three devices plus the 503.
  expect(grew('herald_gateway_request_duration_seconds_count', { gateway: 'apns' })).toBe(4);
  expect(grew('herald_gateway_request_duration_seconds_count', { gateway: 'fcm' })).toBe(1);
  const seconds = grew('herald_gateway_request_duration_seconds_sum', { gateway: 'apns' });
  expect(seconds).toBeGreaterThan(0);
  // Each of the four requests lay inside the push, so their sum is at most four times its length:
  // seconds, not milliseconds, however slow the machine.
  expect(seconds).toBeLessThanOrEqual(4 * pushSeconds);
  expect(sample(after, 'herald_push_tasks_in_flight')).toBe(0);
  const prefix = p.h.herald.runtime.config.bus.topicPrefix;
  const { topics } = p.h.herald.runtime;
  expect(sample(after, 'herald_bus_consumer_lag', { group: `${prefix}herald-fanout`, topic: topics.requests })).toBe(0);
  expect(sample(after, 'herald_bus_consumer_lag', { group: `${prefix}herald-sender`, topic: topics.tasks })).toBe(0);
});

it('shows slices in flight and lag while a push is held up at the gateway', async () => {
  p.fakes.apns.respondTo(deviceToken(10), [{ stall: true }]);
  const requests = p.fakes.apns.log.requestCount;
  const res = await p.sendToDevices({ device_type: 'ios', device_ids: [deviceToken(10)], data: { alert: 'Held' } });
  expect(res.status).toBe(201);
  await p.fakes.apns.waitForRequests(requests + 1);
  const during = await scrape();
  expect(sample(during, 'herald_push_tasks_in_flight')).toBe(1);
  // The slice in hand is not committed yet.
  const prefix = p.h.herald.runtime.config.bus.topicPrefix;
  expect(sample(during, 'herald_bus_consumer_lag', { group: `${prefix}herald-sender` })).toBeGreaterThanOrEqual(1);
  await p.settled(res.body.objectId);
  await waitForIdleEngine(p.h);
  expect(sample(await scrape(), 'herald_push_tasks_in_flight')).toBe(0);
});
