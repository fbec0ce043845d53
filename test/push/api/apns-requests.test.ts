import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApnsRequestRecord } from '../../support/gateways/fake-apns.ts';
import { deviceToken } from '../../support/gateways/gateway-fixtures.ts';
import { startPushHerald, type PushHerald } from '../support/push-herald.ts';

let p: PushHerald;
beforeAll(async () => {
  p = await startPushHerald();
});
afterAll(async () => {
  await p?.close();
});

/** Sends one push to device `n` (listed) and answers the request the fake APNs accepted. */
async function sendTo(n: number, body: Record<string, unknown>): Promise<ApnsRequestRecord> {
  const res = await p.sendToDevices({ device_type: 'ios', device_ids: [deviceToken(n)], ...body });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  expect(await p.settled(res.body.objectId)).toMatchObject({ successes: 1 });
  const deliveries = p.fakes.apns.deliveriesTo(deviceToken(n));
  expect(deliveries).toHaveLength(1);
  return deliveries[0] as ApnsRequestRecord;
}

/** Sends a query push to the installation holding device `n` and answers its request at the fake. */
async function sendToInstallation(n: number, body: Record<string, unknown>): Promise<ApnsRequestRecord> {
  const res = await p.send({ where: { deviceToken: deviceToken(n) }, ...body });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  expect(await p.settled(res.body.objectId)).toMatchObject({ devices: 1, successes: 1 });
  const deliveries = p.fakes.apns.deliveriesTo(deviceToken(n));
  return deliveries.at(-1) as ApnsRequestRecord;
}

const payloadOf = (request: ApnsRequestRecord): Record<string, unknown> => JSON.parse(request.payload.toString('utf8')) as Record<string, unknown>;

describe('apns-topic', () => {
  it('is the push’s topic when it names one, even over the installation’s', async () => {
    await p.saveInstallation({ deviceType: 'ios', deviceToken: deviceToken(1), apnsTopic: 'com.herald.fromdevice' });
    const request = await sendToInstallation(1, { data: { alert: 'A' }, topic: 'com.herald.frompush' });
    expect(request.headers['apns-topic']).toBe('com.herald.frompush');
  });

  it('is the installation’s apnsTopic when the push names none', async () => {
    await p.saveInstallation({ deviceType: 'ios', deviceToken: deviceToken(2), apnsTopic: 'com.herald.fromdevice' });
    const request = await sendToInstallation(2, { data: { alert: 'A' } });
    expect(request.headers['apns-topic']).toBe('com.herald.fromdevice');
  });

  it('is the app’s default topic when neither names one', async () => {
    await p.saveInstallation({ deviceType: 'ios', deviceToken: deviceToken(3) });
    const request = await sendToInstallation(3, { data: { alert: 'A' } });
    expect(request.headers['apns-topic']).toBe(p.fakes.pki.apns.topic);
  });
});

describe('headers', () => {
  it('sends an alert at priority 10 with push type alert, no expiration and no collapse id by default', async () => {
    const request = await sendTo(10, { data: { alert: 'Plain' } });
    expect(request.headers).toMatchObject({ 'apns-push-type': 'alert', 'apns-priority': '10' });
    expect(request.headers['apns-expiration']).toBeUndefined();
    expect(request.headers['apns-collapse-id']).toBeUndefined();
    expect(request.headers.authorization).toMatch(/^bearer /);
  });

  it('sends a background push as type background at priority 5', async () => {
    const request = await sendTo(11, { data: { 'content-available': 1, 'apns-push-type': 'background', alert: '' } });
    expect(request.headers).toMatchObject({ 'apns-push-type': 'background', 'apns-priority': '5' });
  });

  it('takes apns-priority and collapse-id from data, and leaves them out of the payload', async () => {
    const request = await sendTo(12, { data: { alert: 'Quiet', 'apns-priority': 5, 'collapse-id': 'score-update' } });
    expect(request.headers).toMatchObject({ 'apns-priority': '5', 'apns-collapse-id': 'score-update' });
    expect(payloadOf(request)).toEqual({ aps: { alert: 'Quiet' } });
  });

  it('sets apns-expiration from expiration_time, in whole seconds', async () => {
    const expiresAt = p.clock.now() + 3_600_500;
    const request = await sendTo(13, { data: { alert: 'Soon gone' }, expiration_time: new Date(expiresAt).toISOString() });
    expect(request.headers['apns-expiration']).toBe(String(Math.floor(expiresAt / 1000)));
  });

  it('sets apns-expiration from expiration_interval, counted from the request', async () => {
    const sentAt = p.clock.now();
    const request = await sendTo(14, { data: { alert: 'Soon gone' }, expiration_interval: 600 });
    expect(request.headers['apns-expiration']).toBe(String(Math.floor((sentAt + 600_000) / 1000)));
  });
});

describe('payload', () => {
  it('builds aps from the classic form and keeps custom keys beside it', async () => {
    const request = await sendTo(20, {
      data: { alert: 'Body text', title: 'Title', badge: 4, sound: 'ping.caf', category: 'news', 'thread-id': 't1', 'mutable-content': 1, articleId: 42, tags: ['a'] },
    });
    expect(payloadOf(request)).toEqual({
      aps: { badge: 4, alert: { title: 'Title', body: 'Body text' }, sound: 'ping.caf', category: 'news', 'thread-id': 't1', 'mutable-content': 1 },
      articleId: 42,
      tags: ['a'],
    });
  });

  it('sends the aps form as given, with custom keys beside it', async () => {
    const aps = { alert: { title: 'Hi', body: 'There', 'loc-key': 'GREETING' }, sound: { name: 'bell.caf', critical: 1, volume: 0.5 }, 'interruption-level': 'time-sensitive' };
    const request = await sendTo(21, { data: { aps, 'collapse-id': 'greet', orderId: 'o-7' } });
    expect(payloadOf(request)).toEqual({ aps, orderId: 'o-7' });
    expect(request.headers['apns-collapse-id']).toBe('greet');
  });
});

describe('badge Increment', () => {
  it('counts 1, 2, 3 on successive pushes to one device and leaves its updatedAt alone', async () => {
    const objectId = await p.saveInstallation({ deviceType: 'ios', deviceToken: deviceToken(30) });
    const before = await p.h.request('GET', `/1.1/installations/${objectId}`);
    const badges: unknown[] = [];
    for (let round = 1; round <= 3; round += 1) {
      // The engine's clock moves between pushes, as it does for real; a badge write must not count as the device opening the app.
      p.clock.advance(60_000);
      const request = await sendToInstallation(30, { data: { alert: `Message ${round}`, badge: 'Increment' } });
      badges.push((payloadOf(request).aps as Record<string, unknown>).badge);
    }
    expect(badges).toEqual([1, 2, 3]);
    const after = await p.h.request('GET', `/1.1/installations/${objectId}`);
    expect(after.body.badge).toBe(3);
    expect(after.body.updatedAt).toBe(before.body.updatedAt);
  });

  it('keeps the updatedAt of a device saved again while its badge was being counted', async () => {
    const objectId = await p.saveInstallation({ deviceType: 'ios', deviceToken: deviceToken(32), badge: 5 });
    const installations = p.h.herald.runtime.store.installations;
    const update = installations.update.bind(installations);
    let resavedAt: string | undefined;
    // The device opens the app between the sender's read of it and the badge write.
    installations.update = async (appId, id, ops, options) => {
      if (resavedAt === undefined && ops.some((op) => op.op === 'increment' && op.path[0] === 'badge')) {
        p.clock.advance(60_000);
        const resave = await p.h.request('POST', '/1.1/installations', { body: { deviceType: 'ios', deviceToken: deviceToken(32) } });
        resavedAt = resave.body.updatedAt as string;
      }
      return update(appId, id, ops, options);
    };
    try {
      const request = await sendToInstallation(32, { data: { alert: 'Raced', badge: 'Increment' } });
      expect((payloadOf(request).aps as Record<string, unknown>).badge).toBe(6);
    } finally {
      installations.update = update;
    }
    const after = await p.h.request('GET', `/1.1/installations/${objectId}`);
    expect(resavedAt).toBeDefined();
    expect(after.body).toMatchObject({ badge: 6, updatedAt: resavedAt });
  });

  it('sends 1 to a listed token that has no installation', async () => {
    const request = await sendTo(31, { data: { alert: 'Hi', badge: 'Increment' } });
    expect((payloadOf(request).aps as Record<string, unknown>).badge).toBe(1);
  });
});
