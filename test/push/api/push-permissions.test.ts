import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { deviceToken } from '../../support/gateways/gateway-fixtures.ts';
import { testApp } from '../../support/test-herald.ts';
import { startPushHerald, type PushHerald } from '../support/push-herald.ts';

let p: PushHerald;
/** An app whose clients may send pushes with the ordinary key. */
const openApp = testApp({ settings: { clientPushAllowed: true } });

beforeAll(async () => {
  p = await startPushHerald({ extraApps: (fakes) => [{ ...openApp, push: fakes.appPush }] });
  await p.saveInstallation({ deviceType: 'ios', deviceToken: deviceToken(1), channels: ['perm'] });
});
afterAll(async () => {
  await p?.close();
});

const alert = { channels: ['perm'], data: { alert: 'Hi' } };

/** Asserts that nothing was stored and nothing reached a gateway since `before`. */
async function expectNothingSent(before: { records: number; requests: number }): Promise<void> {
  expect(await p.recordCount()).toBe(before.records);
  expect(p.fakes.apns.log.requestCount + p.fakes.fcm.log.requestCount).toBe(before.requests);
}

async function snapshot(): Promise<{ records: number; requests: number }> {
  return { records: await p.recordCount(), requests: p.fakes.apns.log.requestCount + p.fakes.fcm.log.requestCount };
}

describe('who may send', () => {
  it('refuses the ordinary key with 119 and 403 while client push is off', async () => {
    const before = await snapshot();
    for (const path of ['/1.1/push', '/1.1/push/devices']) {
      const body = path === '/1.1/push' ? alert : { device_type: 'ios', device_ids: [deviceToken(1)], data: { alert: 'Hi' } };
      const res = await p.h.request('POST', path, { body });
      expect(res.status).toBe(403);
      expect(res.body.code).toBe(119);
    }
    await expectNothingSent(before);
  });

  it('lets the ordinary key send when the app allows client push', async () => {
    const res = await p.h.request('POST', '/1.1/push/devices', {
      app: openApp,
      body: { device_type: 'ios', device_ids: [deviceToken(2)], data: { alert: 'From a client' } },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    await p.fakes.apns.waitForDeliveries(1);
    expect(p.fakes.apns.deliveriesTo(deviceToken(2))).toHaveLength(1);
  });

  it('sends with the master key', async () => {
    const res = await p.send(alert);
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(res.body).toEqual({ objectId: expect.any(String), createdAt: expect.any(String) });
    expect((await p.settled(res.body.objectId)).successes).toBe(1);
    expect(p.fakes.apns.deliveriesTo(deviceToken(1))).toHaveLength(1);
  });
});

describe('what is refused before anything is stored', () => {
  it('answers 413 to a body over 4096 bytes', async () => {
    const before = await snapshot();
    const body = { channels: ['perm'], data: { alert: 'x'.repeat(4100) } };
    const res = await p.send(body);
    expect(res.status).toBe(413);
    expect(res.body.code).toBe(413);
    await expectNothingSent(before);
  });

  it('has no 4096-byte limit on device pushes, which may list 500 iOS tokens', async () => {
    const tokens = Array.from({ length: 500 }, (_, n) => deviceToken(5000 + n));
    const body = { device_type: 'ios', device_ids: tokens, data: { alert: 'To 500' } };
    expect(Buffer.byteLength(JSON.stringify(body))).toBeGreaterThan(4096);
    const res = await p.sendToDevices(body);
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    const record = await p.settled(res.body.objectId);
    expect(record).toMatchObject({ devices: 500, successes: 500 });
    expect(tokens.every((token) => p.fakes.apns.deliveriesTo(token).length === 1)).toBe(true);
  });

  it('accepts a body of exactly 4096 bytes', async () => {
    const envelope = JSON.stringify({ channels: ['perm'], data: { alert: '' } });
    const rawBody = JSON.stringify({ channels: ['perm'], data: { alert: 'y'.repeat(4096 - Buffer.byteLength(envelope)) } });
    expect(Buffer.byteLength(rawBody)).toBe(4096);
    const res = await p.h.request('POST', '/1.1/push', { master: true, rawBody });
    // The body limit passes; the payload check (4096 bytes of APNs payload) may still refuse it, but not as 413.
    expect(res.status).not.toBe(413);
  });

  it.each([
    ['an array', '[1, 2]'],
    ['a string', '"push"'],
    ['a number', '42'],
    ['null', 'null'],
    ['broken JSON', '{"data": '],
  ])('answers 107 to a body that is %s', async (_what, rawBody) => {
    const before = await snapshot();
    const res = await p.h.request('POST', '/1.1/push', { master: true, rawBody });
    expect(res.status).toBe(400);
    expect(res.body.code).toBe(107);
    await expectNothingSent(before);
  });

  it.each([
    { what: 'no data', body: { channels: ['perm'] }, code: 113 },
    { what: 'data that is not an object', body: { channels: ['perm'], data: 'Hi' }, code: 111 },
    { what: 'no alert', body: { channels: ['perm'], data: { title: 'T' } }, code: 113 },
    { what: 'an alert object that could reach Android', body: { channels: ['perm'], data: { alert: { body: 'B' } } }, code: 111 },
    { what: 'a badge word other than Increment', body: { channels: ['perm'], data: { alert: 'A', badge: 'increment' } }, code: 111 },
    { what: 'an apns-priority of 7', body: { channels: ['perm'], data: { alert: 'A', 'apns-priority': 7 } }, code: 1 },
    { what: 'a bad channel name', body: { channels: ['no spaces'], data: { alert: 'A' } }, code: 112 },
    { what: 'a where that is not JSON', body: { where: '{nope', data: { alert: 'A' } }, code: 107 },
    { what: 'a req_id with a dash', body: { channels: ['perm'], data: { alert: 'A' }, req_id: 'a-b' }, code: 1 },
    { what: 'a notification_id of 17 characters', body: { channels: ['perm'], data: { alert: 'A' }, notification_id: 'a'.repeat(17) }, code: 1 },
    { what: 'an unparseable push_time', body: { channels: ['perm'], data: { alert: 'A' }, push_time: 'tomorrow' }, code: 1 },
    { what: 'a prod that is neither dev nor prod', body: { channels: ['perm'], data: { alert: 'A' }, prod: 'staging' }, code: 1 },
  ])('refuses $what with code $code, storing and sending nothing', async ({ body, code }) => {
    const before = await snapshot();
    const res = await p.send(body);
    expect(res.status, JSON.stringify(res.body)).toBe(400);
    expect(res.body.code).toBe(code);
    await expectNothingSent(before);
  });

  it.each([
    { what: 'no device_type', body: { device_ids: [deviceToken(3)], data: { alert: 'A' } }, code: 113 },
    { what: 'a malformed iOS token', body: { device_type: 'ios', device_ids: ['not-hex'], data: { alert: 'A' } }, code: 114 },
    { what: 'more than 500 devices', body: { device_type: 'android', device_ids: Array.from({ length: 501 }, (_, n) => `a${n}`), data: { alert: 'A' } }, code: 1 },
    { what: 'an Android push with an alert object', body: { device_type: 'android', device_ids: ['a1'], data: { alert: { body: 'B' } } }, code: 111 },
  ])('refuses a device push with $what (code $code)', async ({ body, code }) => {
    const before = await snapshot();
    const res = await p.sendToDevices(body);
    expect(res.status, JSON.stringify(res.body)).toBe(400);
    expect(res.body.code).toBe(code);
    await expectNothingSent(before);
  });
});
