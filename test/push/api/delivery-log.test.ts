import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { installationRemoval as removal } from '../support/installation-removal.ts';
import { deviceToken } from '../../support/gateways/gateway-fixtures.ts';
import { everyEntry, type Json } from '../support/delivery-entries.ts';
import { dayMs, iosInstallation, startPushHerald, uniqueName, type PushHerald } from '../support/push-herald.ts';

let p: PushHerald;
beforeAll(async () => {
  p = await startPushHerald();
});
afterAll(async () => {
  await p?.close();
});

async function get(path: string, master = true): Promise<{ status: number; body: Json }> {
  const res = await p.h.request('GET', path, { master });
  return { status: res.status, body: res.body as Json };
}

interface Device {
  name: string;
  body: Record<string, unknown>;
  objectId?: string;
}

/**
 * One push to a channel holding iOS and Android devices that end every way:
 * delivered, unregistered (410 and FCM UNREGISTERED), BadDeviceToken,
 * retried 429 and 503 then delivered, 503 until the attempts run out, FCM
 * UNAVAILABLE then delivered, and Android devices that are not sent to
 * (the `lc` vendor, an unknown vendor). An idle device in the channel is
 * not targeted.
 */
describe("a push's delivery log", () => {
  const channel = uniqueName('log');
  const devices: Device[] = [
    { name: 'delivered', body: { deviceType: 'ios', deviceToken: deviceToken(501) } },
    { name: 'delivered-2', body: { deviceType: 'ios', deviceToken: deviceToken(502) } },
    { name: 'unregistered', body: { deviceType: 'ios', deviceToken: deviceToken(503) } },
    { name: 'bad-token', body: { deviceType: 'ios', deviceToken: deviceToken(504) } },
    { name: 'busy', body: { deviceType: 'ios', deviceToken: deviceToken(505) } },
    { name: 'flaky', body: { deviceType: 'ios', deviceToken: deviceToken(506) } },
    { name: 'down', body: { deviceType: 'ios', deviceToken: deviceToken(507) } },
    { name: 'fcm-delivered', body: { deviceType: 'android', installationId: uniqueName('log-a'), registrationId: 'log-fcm-ok', vendor: 'fcm' } },
    { name: 'fcm-gone', body: { deviceType: 'android', installationId: uniqueName('log-b'), registrationId: 'log-fcm-gone', vendor: 'fcm' } },
    { name: 'fcm-flaky', body: { deviceType: 'android', installationId: uniqueName('log-c'), registrationId: 'log-fcm-flaky', vendor: 'fcm' } },
    { name: 'lc', body: { deviceType: 'android', installationId: uniqueName('log-d'), registrationId: 'log-lc', vendor: 'lc' } },
    { name: 'unknown-vendor', body: { deviceType: 'android', installationId: uniqueName('log-e'), registrationId: 'log-nokia', vendor: 'nokia' } },
  ];
  const byName = (name: string): Device => devices.find((device) => device.name === name) as Device;
  let pushId: string;
  let idleId: string;

  beforeAll(async () => {
    p.fakes.apns.respondTo(deviceToken(503), [{ status: 410, reason: 'Unregistered', timestamp: p.clock.now() }]);
    p.fakes.apns.respondTo(deviceToken(504), [{ status: 400, reason: 'BadDeviceToken' }]);
    p.fakes.apns.respondTo(deviceToken(505), [{ status: 429, reason: 'TooManyRequests' }]);
    p.fakes.apns.respondTo(deviceToken(506), [{ status: 503, reason: 'ServiceUnavailable' }, { status: 500, reason: 'InternalServerError' }]);
    p.fakes.apns.respondTo(deviceToken(507), Array.from({ length: 4 }, () => ({ status: 503, reason: 'ServiceUnavailable' })));
    p.fakes.fcm.respondTo('log-fcm-gone', [{ errorCode: 'UNREGISTERED' }]);
    p.fakes.fcm.respondTo('log-fcm-flaky', [{ errorCode: 'UNAVAILABLE' }]);
    for (const device of devices) device.objectId = await p.saveInstallation({ ...device.body, channels: [channel] });
    const idle = iosInstallation(508, p.clock.now() - 91 * dayMs, { channels: [channel] });
    await p.seed([idle]);
    idleId = idle.objectId;
    const res = await p.send({ channels: [channel], data: { alert: 'Logged' } });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    pushId = res.body.objectId;
    const record = await p.settled(pushId);
    expect(record).toMatchObject({ devices: 12, successes: 6, invalidTokens: 3, errors: 3 });
  });

  it('has exactly one final entry per targeted device, as the fake gateways saw it', async () => {
    const { entries } = await everyEntry(p, `/1.1/notifications/${pushId}/deliveries`, 1000);
    expect(entries).toHaveLength(devices.length);
    const entryOf = (name: string): Json => {
      const found = entries.filter((entry) => entry.installation === byName(name).objectId);
      expect(found, name).toHaveLength(1);
      return found[0] as Json;
    };
    const expected: Record<string, [string, string | null]> = {
      delivered: ['delivered', null],
      'delivered-2': ['delivered', null],
      unregistered: ['invalidToken', 'Unregistered'],
      'bad-token': ['invalidToken', 'BadDeviceToken'],
      busy: ['delivered', null],
      flaky: ['delivered', null],
      down: ['failed', 'ServiceUnavailable'],
      'fcm-delivered': ['delivered', null],
      'fcm-gone': ['invalidToken', 'UNREGISTERED'],
      'fcm-flaky': ['delivered', null],
      lc: ['failed', 'NoRegistrationId'],
      'unknown-vendor': ['failed', 'UnsupportedVendor'],
    };
    for (const [name, [outcome, reason]] of Object.entries(expected)) {
      const entry = entryOf(name);
      expect(entry, name).toMatchObject({ version: 1, pushId, outcome, reason, platform: byName(name).body.deviceType });
      const token = String(byName(name).body.deviceToken ?? byName(name).body.registrationId);
      if (byName(name).body.deviceType === 'ios') {
        // What APNs saw: one request per attempt, the last one's status and apns-id.
        const requests = p.fakes.apns.log.requestsTo(token);
        const last = requests.at(-1);
        expect(entry, name).toMatchObject({ gateway: 'apns', attempts: requests.length, status: last?.status, messageId: last?.apnsId, tokenSuffix: token.slice(-8) });
        expect(entry.outcome === 'delivered', name).toBe(last?.status === 200);
      } else if (name === 'lc' || name === 'unknown-vendor') {
        expect(entry, name).toMatchObject({ attempts: 0, status: null, latencyMs: 0 });
        expect(p.fakes.fcm.log.requestsTo(token)).toHaveLength(0);
      } else {
        const requests = p.fakes.fcm.log.requestsTo(token);
        expect(entry, name).toMatchObject({ gateway: 'fcm', attempts: requests.length, status: requests.at(-1)?.status, messageId: null });
      }
    }
    expect(entryOf('busy').attempts).toBe(2);
    expect(entryOf('flaky').attempts).toBe(3);
    expect(entryOf('down').attempts).toBe(4);
    expect(entryOf('unregistered').unregistered).toBe(true);
    expect(entryOf('bad-token').unregistered).toBe(false);
    expect(entries.some((entry) => entry.installation === idleId)).toBe(false);
  });

  it('pages through the same entries with cursors, in a stable order', async () => {
    const whole = await everyEntry(p, `/1.1/notifications/${pushId}/deliveries`, 1000);
    const paged = await everyEntry(p, `/1.1/notifications/${pushId}/deliveries`, 5);
    expect(paged.pages).toBeGreaterThanOrEqual(3);
    expect(paged.entries).toEqual(whole.entries);
    const again = await everyEntry(p, `/1.1/notifications/${pushId}/deliveries`, 5);
    expect(again.entries).toEqual(paged.entries);
  });

  it('filters by outcome and by reason', async () => {
    const failed = await everyEntry(p, `/1.1/notifications/${pushId}/deliveries?outcome=failed`, 2);
    expect(failed.entries.map((entry) => entry.reason).sort()).toEqual(['NoRegistrationId', 'ServiceUnavailable', 'UnsupportedVendor']);
    const invalid = await everyEntry(p, `/1.1/notifications/${pushId}/deliveries?outcome=invalidToken`, 10);
    expect(invalid.entries.map((entry) => entry.reason).sort()).toEqual(['BadDeviceToken', 'UNREGISTERED', 'Unregistered']);
    const notDelivered = await everyEntry(p, `/1.1/notifications/${pushId}/deliveries?outcome=failed,invalidToken`, 10);
    expect(notDelivered.entries).toHaveLength(6);
    const bad = await everyEntry(p, `/1.1/notifications/${pushId}/deliveries?reason=BadDeviceToken`, 10);
    expect(bad.entries.map((entry) => entry.installation)).toEqual([byName('bad-token').objectId]);
    const delivered = await everyEntry(p, `/1.1/notifications/${pushId}/deliveries?outcome=delivered`, 10);
    expect(delivered.entries).toHaveLength(6);
    expect(delivered.entries.every((entry) => entry.outcome === 'delivered' && entry.reason === null)).toBe(true);
  });

  it('finds the push by its notification id as well as by its objectId', async () => {
    const record = await p.record(pushId);
    const byNotification = await get(`/1.1/notifications/${String(record?.notificationId)}/deliveries?limit=1000`);
    expect(byNotification.status).toBe(200);
    expect(byNotification.body.results).toHaveLength(devices.length);
  });

  it("lists an installation's entries, also once the installation is gone", async () => {
    const gone = byName('unregistered').objectId as string;
    await expect.poll(async () => (await get(`/1.1/installations/${gone}`)).status, removal).toBe(404);
    const page = await get(`/1.1/installations/${gone}/deliveries`);
    expect(page.status).toBe(200);
    expect(page.body.results).toEqual([expect.objectContaining({ pushId, installation: gone, outcome: 'invalidToken', reason: 'Unregistered', unregistered: true })]);
    expect(page.body.nextCursor).toBeNull();
  });

  it('refuses bad parameters with a code and a message', async () => {
    const bad = [
      `/1.1/notifications/${pushId}/deliveries?outcome=lost`,
      `/1.1/notifications/${pushId}/deliveries?reason=NoSuchReason`,
      `/1.1/notifications/${pushId}/deliveries?limit=0`,
      `/1.1/notifications/${pushId}/deliveries?limit=1001`,
      `/1.1/notifications/${pushId}/deliveries?limit=ten`,
      `/1.1/notifications/${pushId}/deliveries?cursor=not-a-cursor`,
      `/1.1/notifications/${pushId}/deliveries?outcome=failed&outcome=delivered`,
      `/1.1/installations/${String(byName('delivered').objectId)}/deliveries?cursor=${Buffer.from('["p","x","y",0,0]').toString('base64url')}`,
    ];
    for (const path of bad) {
      const res = await get(path);
      expect(res.status, path).toBe(400);
      expect(res.body, path).toEqual({ code: 1, error: expect.any(String) });
    }
  });

  it('needs the master key and a push that exists', async () => {
    expect(await get(`/1.1/notifications/${pushId}/deliveries`, false)).toMatchObject({ status: 403, body: { code: 403 } });
    expect(await get(`/1.1/installations/${String(byName('delivered').objectId)}/deliveries`, false)).toMatchObject({ status: 403, body: { code: 403 } });
    expect(await get(`/1.1/notifications/${pushId}/explain?installation=${String(byName('delivered').objectId)}`, false)).toMatchObject({ status: 403 });
    expect(await get('/1.1/notifications/nosuchpush/deliveries')).toMatchObject({ status: 404, body: { code: 101 } });
  });
});

describe("an installation's deliveries", () => {
  it('lists every push it got, newest first, a page at a time', async () => {
    const channel = uniqueName('many');
    const objectId = await p.saveInstallation({ deviceType: 'ios', deviceToken: deviceToken(520), channels: [channel] });
    const pushes: string[] = [];
    for (let n = 0; n < 3; n += 1) {
      const res = await p.send({ channels: [channel], data: { alert: `Push ${n}` } });
      pushes.push(res.body.objectId);
      await p.settled(res.body.objectId);
      // Slices are told apart by the time they were written.
      p.clock.advance(1000);
    }
    const { entries, pages } = await everyEntry(p, `/1.1/installations/${objectId}/deliveries`, 2);
    expect(pages).toBe(2);
    expect(entries.map((entry) => entry.pushId)).toEqual([...pushes].reverse());
    expect(entries.every((entry) => entry.installation === objectId && entry.outcome === 'delivered')).toBe(true);
    expect((await get(`/1.1/installations/${objectId}/deliveries?outcome=failed`)).body.results).toEqual([]);
    expect((await get('/1.1/installations/unknownInstallation1/deliveries')).body).toEqual({ results: [], nextCursor: null });
  });
});
