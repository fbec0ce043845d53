import { afterAll, beforeAll, expect, it } from 'vitest';
import { flowControlBurst } from '../../../src/push/sender/flow-control-burst.ts';
import { deviceToken } from '../../support/gateways/gateway-fixtures.ts';
import { iosInstallation, startPushHerald, uniqueName, type PushHerald } from '../support/push-herald.ts';
import { watchSchedulerRounds } from '../support/scheduler-rounds.ts';
import { everyEntry } from '../support/delivery-entries.ts';

let p: PushHerald;
beforeAll(async () => {
  // Slices of 100, so that a paced push has slices waiting for tokens; a stalled delivery is given up after 2 s and resent.
  p = await startPushHerald({ engine: { sliceSize: 100 } });
});
afterAll(async () => {
  await p?.close();
});

const minute = 60_000;
const at = (ms: number) => new Date(ms).toISOString();

it('records a push whose expiry has passed when it is accepted as expired and sends nothing', async () => {
  await p.saveInstallation({ deviceType: 'ios', deviceToken: deviceToken(1), channels: ['past'] });
  const res = await p.send({ channels: ['past'], data: { alert: 'Too late' }, expiration_time: at(p.clock.now() - 1000) });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  const record = await p.settled(res.body.objectId);
  expect(record).toMatchObject({ status: 'done', successes: 0, errorMessage: expect.stringMatching(/expired/) });
  expect(p.fakes.apns.log.requestsTo(deviceToken(1))).toHaveLength(0);
});

it('never delivers a scheduled push that expires before its push_time', async () => {
  const rounds = watchSchedulerRounds(p.h.herald.runtime.store.scheduled);
  try {
    await p.saveInstallation({ deviceType: 'ios', deviceToken: deviceToken(2), channels: ['scheduled-expiry'] });
    const res = await p.send({
      channels: ['scheduled-expiry'],
      data: { alert: 'Stale by then' },
      push_time: at(p.clock.now() + 10 * minute),
      expiration_time: at(p.clock.now() + 5 * minute),
    });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(await p.record(res.body.objectId)).toMatchObject({ status: 'scheduled' });
    p.clock.advance(11 * minute);
    await rounds.completed();
    const record = await p.settled(res.body.objectId);
    expect(record).toMatchObject({ status: 'done', successes: 0, errorMessage: expect.stringMatching(/expired/) });
    expect(p.fakes.apns.log.requestsTo(deviceToken(2))).toHaveLength(0);
  } finally {
    rounds.restore();
  }
});

it('does not resend a delivery that timed out once the push has expired', async () => {
  const token = deviceToken(3);
  // The first request gets no answer; a resend would be accepted.
  p.fakes.apns.respondTo(token, [{ stall: true }]);
  const res = await p.sendToDevices({ device_type: 'ios', device_ids: [token], data: { alert: 'Breaking' }, expiration_interval: 60 });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  await p.fakes.apns.waitForRequests(p.fakes.apns.log.requestCount + 1);
  // The minute passes while the gateway holds the request.
  p.clock.advance(2 * minute);
  const record = await p.settled(res.body.objectId);
  expect(p.fakes.apns.deliveriesTo(token)).toHaveLength(0);
  expect(record).toMatchObject({ devices: 1, successes: 0, errors: 1, errorReasons: { Expired: 1 } });
  // The delivery log's one entry for it: failed, Expired, after the one request the gateway held.
  const { entries } = await everyEntry(p, `/1.1/notifications/${res.body.objectId}/deliveries`);
  expect(entries).toHaveLength(1);
  expect(entries[0]).toMatchObject({ outcome: 'failed', reason: 'Expired', tokenSuffix: token.slice(-8), attempts: 1 });
});

it('sends nothing more of a paced push once it has expired', async () => {
  const channel = uniqueName('paced');
  const now = p.clock.now();
  const devices = Array.from({ length: 1500 }, (_, n) => 10_000 + n);
  await p.seed(devices.map((n) => iosInstallation(n, now, { channels: [channel] })));
  // Devices that got the push; a resend after a timeout under load may reach one twice, which is not the point here.
  const reached = () => devices.filter((n) => p.fakes.apns.log.countOf(deviceToken(n)) > 0).length;
  const res = await p.send({ channels: [channel], data: { alert: 'Flash sale' }, flow_control: 1000, expiration_interval: 30 });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  // The bucket starts full: its burst (a fortieth of the rate) goes out at once, then the clock must move.
  const burst = flowControlBurst(1000);
  await expect.poll(reached, { timeout: 10_000, message: 'devices reached' }).toBe(burst);
  p.clock.advance(minute);
  const record = await p.settled(res.body.objectId);
  expect(reached()).toBe(burst);
  expect(record).toMatchObject({ devices: 1500, successes: burst, errors: 1500 - burst, errorReasons: { Expired: 1500 - burst } });
  // One entry a device: the burst delivered, every other one failed Expired without a send.
  const { entries } = await everyEntry(p, `/1.1/notifications/${res.body.objectId}/deliveries`);
  expect(new Set(entries.map((entry) => entry.tokenSuffix)).size).toBe(1500);
  const delivered = entries.filter((entry) => entry.outcome === 'delivered');
  const expired = entries.filter((entry) => entry.outcome === 'failed' && entry.reason === 'Expired' && entry.attempts === 0);
  expect([delivered.length, expired.length]).toEqual([burst, 1500 - burst]);
  expect(new Set(delivered.map((entry) => entry.tokenSuffix))).toEqual(new Set(devices.filter((n) => p.fakes.apns.log.countOf(deviceToken(n)) > 0).map((n) => deviceToken(n).slice(-8))));
});
