import { afterAll, beforeAll, expect, it } from 'vitest';
import { deviceToken } from '../../support/gateways/gateway-fixtures.ts';
import { androidInstallation, dayMs, iosInstallation, startPushHerald, type PushHerald } from '../support/push-herald.ts';

let p: PushHerald;
const channel = 'devlimit';
/** The active iOS devices of the channel: exactly the limit. */
const devices = Array.from({ length: 20_000 }, (_, n) => 1_000_000 + n);

beforeAll(async () => {
  p = await startPushHerald({ engine: { sliceSize: 1000 } });
  const now = p.clock.now();
  await p.seed([
    ...devices.map((n) => iosInstallation(n, now, { channels: [channel] })),
    // Neither Android devices nor idle iOS ones count against the limit.
    ...Array.from({ length: 5 }, (_, n) => androidInstallation(`dl${n}`, now, { channels: [channel] })),
    iosInstallation(2_000_000, now - 91 * dayMs, { channels: [channel] }),
  ]);
  // Writing 20,000 rows to Cassandra takes about a minute here, and longer while the machine is busy.
}, 300_000);
afterAll(async () => {
  await p?.close();
});

it('sends a development push to exactly 20,000 iOS devices', async () => {
  const res = await p.send({ channels: [channel], data: { alert: 'Testing' }, prod: 'dev' });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  const record = await p.settled(res.body.objectId, 60_000);
  expect(record).toMatchObject({ status: 'done', prod: 'dev', devices: 20_005, successes: 20_005, iosSuccesses: 20_000, androidSuccesses: 5 });
  expect(record.errorMessage).toBeUndefined();
  expect(devices.every((n) => p.fakes.apns.log.countOf(deviceToken(n)) >= 1)).toBe(true);
  expect(p.fakes.apns.log.countOf(deviceToken(2_000_000))).toBe(0);
}, 90_000);

it('rejects a development push to 20,001 iOS devices whole, sending nothing', async () => {
  await p.saveInstallation({ deviceType: 'ios', deviceToken: deviceToken(3_000_000), channels: [channel] });
  const apnsBefore = p.fakes.apns.log.requestCount;
  const fcmBefore = p.fakes.fcm.log.requestCount;
  const res = await p.send({ channels: [channel], data: { alert: 'Testing again' }, prod: 'dev' });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  const record = await p.settled(res.body.objectId, 60_000);
  expect(record).toMatchObject({ status: 'Error', errorMessage: 'dev profile disabled for massive push', successes: 0 });
  expect(p.fakes.apns.log.requestCount).toBe(apnsBefore);
  expect(p.fakes.fcm.log.requestCount).toBe(fcmBefore);
}, 90_000);

it('explains the rejection for one of its devices: the development-certificate limit fails, nothing was logged', async () => {
  const objectId = await p.saveInstallation({ deviceType: 'ios', deviceToken: deviceToken(3_000_001), channels: [channel] });
  const res = await p.send({ channels: [channel], data: { alert: 'Testing once more' }, prod: 'dev' });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  expect(await p.settled(res.body.objectId, 60_000)).toMatchObject({ status: 'Error' });
  const explained = await p.h.request('GET', `/1.1/notifications/${String(res.body.objectId)}/explain?installation=${objectId}`, { master: true });
  expect(explained.status, JSON.stringify(explained.body)).toBe(200);
  const [push] = explained.body.pushes;
  expect(push.rules.find((rule: { rule: string }) => rule.rule === 'devCertificateLimit')).toMatchObject({ pass: false, why: expect.stringContaining('dev profile disabled for massive push') });
  expect(push).toMatchObject({ status: 'Error', targeted: true, deliveries: [] });
}, 90_000);
