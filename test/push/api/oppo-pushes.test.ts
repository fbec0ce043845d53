import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { installationRemoval as removal } from '../support/installation-removal.ts';
import type { StoredObject } from '../../../src/core/ports/object-store.ts';
import { oppoApps } from '../../support/gateways/gateway-fixtures.ts';
import type { TestHerald } from '../../support/test-herald.ts';
import { metricValue } from '../support/engine-idle.ts';
import { androidInstallation, dayMs, hmsInstallation, iosInstallation, startPushHerald, uniqueName, type PushHerald } from '../support/push-herald.ts';

let p: PushHerald;
beforeAll(async () => {
  p = await startPushHerald();
});
afterAll(async () => {
  await p?.close();
});

// Messages are untyped JSON on the wire.
type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

/** An OPPO installation document for `seed`, with installationId `oppo-<id>`, registrationId `CN_oppo-<id>` and vendor `oppo` as the hosted service's SDK writes it. */
function oppoInstallation(id: string | number, savedAt: number, fields: Record<string, unknown> = {}): StoredObject {
  return androidInstallation(id, savedAt, { installationId: `oppo-${id}`, registrationId: `CN_oppo-${id}`, vendor: 'oppo', ...fields });
}

/** A counter's value, 0 while it has no such series yet. */
async function counted(h: TestHerald, name: string, labels: Record<string, string>): Promise<number> {
  try {
    return await metricValue(h, name, labels);
  } catch {
    return 0;
  }
}

async function installationExists(objectId: string): Promise<boolean> {
  const res = await p.h.request('GET', `/1.1/installations/${objectId}`, { master: true });
  expect([200, 404]).toContain(res.status);
  return res.status === 200;
}

/** The one message the fake OPPO accepted for `token`. */
function oppoMessageTo(token: string): Json {
  const deliveries = p.fakes.oppo.log.deliveriesTo(token);
  expect(deliveries, `deliveries to ${token}`).toHaveLength(1);
  return deliveries[0]?.message as Json;
}

/** Saves an OPPO device on a fresh channel and answers its registrationId and objectId. */
async function oppoDevice(fields: Record<string, unknown> = {}): Promise<{ token: string; objectId: string; channel: string }> {
  const id = uniqueName('o');
  const channel = uniqueName('c');
  const token = `CN_${id}`;
  const objectId = await p.saveInstallation({ deviceType: 'android', installationId: id, registrationId: token, vendor: 'oppo', channels: [channel], ...fields });
  return { token, objectId, channel };
}

const oppoOutcome = (outcome: string) => counted(p.h, 'herald_push_deliveries_total', { gateway: 'oppo', outcome });

describe('a push to iOS, FCM, Huawei and OPPO devices at once', () => {
  it('reaches each device at its gateway exactly once, batched for OPPO, and counts each outcome on the record and in the metrics', async () => {
    const now = p.clock.now();
    const channel = uniqueName('mixed');
    const oppoDefault = Array.from({ length: 120 }, (_, n) => oppoInstallation(`${channel}-d${n}`, now, { channels: [channel] }));
    const oppoSecond = Array.from({ length: 5 }, (_, n) => oppoInstallation(`${channel}-s${n}`, now, { channels: [channel], deviceProfile: 'second' }));
    const invalid = [oppoInstallation(`${channel}-gone1`, now, { channels: [channel] }), oppoInstallation(`${channel}-gone2`, now, { channels: [channel] })];
    const ios = [iosInstallation(9201, now, { channels: [channel] }), iosInstallation(9202, now, { channels: [channel] })];
    const fcm = [androidInstallation(`${channel}-f1`, now, { channels: [channel] }), androidInstallation(`${channel}-f2`, now, { channels: [channel] })];
    const hms = [hmsInstallation(`${channel}-h1`, now, { channels: [channel] })];
    const others = [
      oppoInstallation(`${channel}-noprofile`, now, { channels: [channel], deviceProfile: 'nowhere' }),
      androidInstallation(`${channel}-lc`, now, { channels: [channel], vendor: 'lc' }),
      androidInstallation(`${channel}-odd`, now, { channels: [channel], vendor: 'nokia' }),
    ];
    await p.seed([...oppoDefault, ...oppoSecond, ...invalid, ...ios, ...fcm, ...hms, ...others]);
    p.fakes.oppo.invalidate(...invalid.map((installation) => installation.registrationId as string));
    const requestsBefore = p.fakes.oppo.requests.length;
    const before = { delivered: await oppoOutcome('delivered'), invalid: await oppoOutcome('invalid-token'), notSent: await oppoOutcome('not-sent') };

    const res = await p.send({ channels: [channel], data: { alert: 'Mixed', title: 'All of them', ref: 7 } });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    const record = await p.settled(res.body.objectId);

    expect(record).toMatchObject({
      devices: 135,
      successes: 130,
      iosSuccesses: 2,
      androidSuccesses: 128,
      invalidTokens: 2,
      errors: 3,
      errorReasons: { OppoInvalidRegistrationId: 2, NoVendorCredentials: 1, NoRegistrationId: 1, UnsupportedVendor: 1 },
    });
    for (const installation of [...oppoDefault, ...oppoSecond]) expect(p.fakes.oppo.log.countOf(installation.registrationId as string)).toBe(1);
    for (const installation of ios) expect(p.fakes.apns.log.countOf(installation.deviceToken as string)).toBe(1);
    for (const installation of fcm) expect(p.fakes.fcm.log.countOf(installation.registrationId as string)).toBe(1);
    for (const installation of hms) expect(p.fakes.hms.log.countOf(installation.registrationId as string)).toBe(1);
    expect(p.fakes.oppo.requestsWith(others[0]?.registrationId as string)).toEqual([]);

    // Each profile through its own AppKey; many messages a request, far fewer requests than devices.
    const requests = p.fakes.oppo.requests.slice(requestsBefore);
    const tokensOf = (appKey: string) => requests.filter((request) => request.appKey === appKey).flatMap((request) => request.tokens);
    expect(new Set(tokensOf(oppoApps.second.appKey))).toEqual(new Set(oppoSecond.map((installation) => installation.registrationId)));
    expect(tokensOf(oppoApps._default.appKey)).toHaveLength(122);
    expect(Math.max(...requests.map((request) => request.tokens.length))).toBeGreaterThanOrEqual(20);
    expect(requests.length).toBeLessThanOrEqual(16);

    // The message: a notification on the profile's channel, the custom keys as the click's parameters.
    expect(oppoMessageTo(oppoDefault[0]?.registrationId as string)).toEqual({
      target_type: 2,
      target_value: oppoDefault[0]?.registrationId,
      notification: { title: 'All of them', content: 'Mixed', click_action_type: 0, action_parameters: '{"ref":"7"}', channel_id: 'push', off_line: true },
    });
    // The second profile names no channel.
    expect(oppoMessageTo(oppoSecond[0]?.registrationId as string).notification.channel_id).toBeUndefined();

    // The invalid registration ids' installations are gone, the others stay.
    const found = async (installationId: string) => (await p.h.request('GET', `/1.1/installations?where=${encodeURIComponent(JSON.stringify({ installationId }))}`, { master: true })).body.results;
    await expect.poll(() => found(`oppo-${channel}-gone1`), removal).toEqual([]);
    await expect.poll(() => found(`oppo-${channel}-gone2`), removal).toEqual([]);
    expect(await found(`oppo-${channel}-d0`)).toHaveLength(1);

    expect((await oppoOutcome('delivered')) - before.delivered).toBe(125);
    expect((await oppoOutcome('invalid-token')) - before.invalid).toBe(2);
    expect((await oppoOutcome('not-sent')) - before.notSent).toBe(1);
  });

  it('gives OPPO devices data.android with data.oppo over it, OPPO\'s own fields into the notification', async () => {
    const channel = uniqueName('content');
    await p.saveInstallation({ deviceType: 'android', installationId: uniqueName('f'), registrationId: `fcm-${channel}`, vendor: 'fcm', channels: [channel] });
    const { token } = await oppoDevice({ channels: [channel] });
    const res = await p.send({
      channels: [channel],
      _notificationChannel: 'news',
      data: {
        alert: 'Body default',
        title: 'Title default',
        ref: 1,
        android: { title: 'For Android', extra: 'android' },
        fcm: { extra: 'fcm only' },
        oppo: { title: 'For OPPO', alert: 'OPPO body', extra: 'oppo only', channel_id: 'oppo-orders', click_action_type: 5, click_action_url: 'shop://orders', notify_id: 3 },
      },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(await p.settled(res.body.objectId)).toMatchObject({ devices: 2, successes: 2 });

    const fcm = p.fakes.fcm.deliveriesTo(`fcm-${channel}`)[0]?.message as Json;
    expect(fcm.android.notification).toMatchObject({ title: 'For Android', body: 'Body default', channel_id: 'news' });

    const { notification } = oppoMessageTo(token);
    expect(notification).toMatchObject({ title: 'For OPPO', content: 'OPPO body', channel_id: 'oppo-orders', click_action_type: 5, click_action_url: 'shop://orders', notify_id: 3 });
    expect(JSON.parse(notification.action_parameters as string)).toEqual({ ref: '1', extra: 'oppo only' });
  });

  it('sends a silent push to none of the OPPO devices and counts each SilentNotSupported, while FCM devices get it', async () => {
    const channel = uniqueName('silent');
    const fcmToken = `fcm-${channel}`;
    await p.saveInstallation({ deviceType: 'android', installationId: uniqueName('f'), registrationId: fcmToken, vendor: 'fcm', channels: [channel] });
    const first = await oppoDevice({ channels: [channel] });
    const second = await oppoDevice({ channels: [channel], deviceProfile: 'second' });
    const notSentBefore = await oppoOutcome('not-sent');
    const record = await p.settled((await p.send({ channels: [channel], data: { alert: 'sync', silent: true } })).body.objectId);
    expect(record).toMatchObject({ devices: 3, successes: 1, androidSuccesses: 1, errors: 2, errorReasons: { SilentNotSupported: 2 } });
    expect(p.fakes.fcm.deliveriesTo(fcmToken)).toHaveLength(1);
    expect(p.fakes.oppo.requestsWith(first.token)).toEqual([]);
    expect(p.fakes.oppo.requestsWith(second.token)).toEqual([]);
    expect((await oppoOutcome('not-sent')) - notSentBefore).toBe(2);
  });

  it('sets off_line_ttl from the push\'s expiry', async () => {
    const { token, channel } = await oppoDevice();
    await p.settled((await p.send({ channels: [channel], data: { alert: 'A' }, expiration_interval: 600 })).body.objectId);
    expect(oppoMessageTo(token).notification.off_line_ttl).toBe(600);
  });
});

describe('OPPO answers', () => {
  it('waits out flow control (-2) and a 502, then delivers once', async () => {
    const { token, channel } = await oppoDevice();
    p.fakes.oppo.respondNext({ status: 200, body: { code: -2, message: 'Service in Flow Control' } }, { status: 502, body: 'Bad gateway' });
    const retriesBefore = await counted(p.h, 'herald_push_retries_total', { gateway: 'oppo', reason: 'OppoFlowControl' });
    const record = await p.settled((await p.send({ channels: [channel], data: { alert: 'A' } })).body.objectId);
    expect(record).toMatchObject({ devices: 1, successes: 1, errors: 0 });
    expect(p.fakes.oppo.requestsWith(token).map((request) => request.status)).toEqual([200, 502, 200]);
    expect(p.fakes.oppo.log.countOf(token)).toBe(1);
    expect((await counted(p.h, 'herald_push_retries_total', { gateway: 'oppo', reason: 'OppoFlowControl' })) - retriesBefore).toBe(1);
  });

  it('fetches a new auth token when OPPO answers 11, and delivers', async () => {
    const { token, channel } = await oppoDevice();
    await p.settled((await p.send({ channels: [channel], data: { alert: 'first' } })).body.objectId);
    const fetched = p.fakes.oppo.tokenRequests;
    p.fakes.oppo.expireAccessTokens();
    const record = await p.settled((await p.send({ channels: [channel], data: { alert: 'second' } })).body.objectId);
    expect(record).toMatchObject({ successes: 1 });
    expect(p.fakes.oppo.tokenRequests).toBe(fetched + 1);
    expect(p.fakes.oppo.requestsWith(token).map((request) => request.code)).toEqual([0, 11, 0]);
  });

  it('removes the installation OPPO answers 10000 for alone in its request, once the profile has delivered', async () => {
    const gone = await oppoDevice();
    p.fakes.oppo.invalidate(gone.token);
    const record = await p.settled((await p.send({ channels: [gone.channel], data: { alert: 'A' } })).body.objectId);
    expect(record).toMatchObject({ devices: 1, invalidTokens: 1, errorReasons: { OppoInvalidRegistrationId: 1 } });
    await expect.poll(() => installationExists(gone.objectId), removal).toBe(false);
  });

  it('fails a message whose parameters OPPO would refuse as too long, without sending it', async () => {
    const { token, channel } = await oppoDevice();
    // In data.oppo, so that the request stays under the route's 4096 bytes and FCM's check.
    const res = await p.send({ channels: [channel], data: { alert: 'A', oppo: { note: 'x'.repeat(3995) } } });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(await p.settled(res.body.objectId)).toMatchObject({ devices: 1, errors: 1, errorReasons: { PayloadTooLarge: 1 } });
    expect(p.fakes.oppo.requestsWith(token)).toEqual([]);
  });

  it('counts DailyQuotaExceeded once OPPO answers 33, sends nothing more through that profile until midnight in China, then sends again', async () => {
    const spent = await oppoDevice({ deviceProfile: 'second' });
    p.fakes.oppo.respondNext({ status: 200, body: { code: 33, message: 'The number of messages exceeds the daily limit' } });
    const first = await p.settled((await p.send({ channels: [spent.channel], data: { alert: 'A' } })).body.objectId);
    expect(first).toMatchObject({ devices: 1, errors: 1, errorReasons: { DailyQuotaExceeded: 1 } });
    const later = await oppoDevice({ deviceProfile: 'second' });
    const second = await p.settled((await p.send({ channels: [later.channel], data: { alert: 'B' } })).body.objectId);
    expect(second).toMatchObject({ devices: 1, errors: 1, errorReasons: { DailyQuotaExceeded: 1 } });
    expect(p.fakes.oppo.requestsWith(later.token)).toEqual([]);
    // The _default profile has its own quota.
    const other = await oppoDevice();
    expect(await p.settled((await p.send({ channels: [other.channel], data: { alert: 'C' } })).body.objectId)).toMatchObject({ successes: 1 });

    const chinaOffsetMs = 8 * 3_600_000;
    const now = p.clock.now();
    p.clock.advance(Math.floor((now + chinaOffsetMs) / dayMs + 1) * dayMs - chinaOffsetMs - now);
    const renewed = await p.settled((await p.send({ channels: [later.channel], data: { alert: 'D' } })).body.objectId);
    expect(renewed).toMatchObject({ devices: 1, successes: 1 });
    expect(p.fakes.oppo.log.countOf(later.token)).toBe(1);
  });
});

describe('/1.1/push/devices with vendor oppo', () => {
  it('sends to registrationIds through the profile named by device_profile, _default without one, and counts a profile the app lacks', async () => {
    const listed = [`CN_${uniqueName('r')}`, `CN_${uniqueName('r')}`];
    const res = await p.sendToDevices({ device_type: 'android', vendor: 'oppo', device_profile: 'second', device_ids: listed, data: { alert: 'Listed' } });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(await p.settled(res.body.objectId)).toMatchObject({ devices: 2, successes: 2, androidSuccesses: 2 });
    for (const token of listed) expect(p.fakes.oppo.requestsWith(token).map((request) => request.appKey)).toEqual([oppoApps.second.appKey]);

    const single = `CN_${uniqueName('r')}`;
    expect(await p.settled((await p.sendToDevices({ device_type: 'android', vendor: 'oppo', device_ids: [single], data: { alert: 'Listed' } })).body.objectId)).toMatchObject({ successes: 1 });
    expect(p.fakes.oppo.requestsWith(single)[0]?.appKey).toBe(oppoApps._default.appKey);

    const nowhere = `CN_${uniqueName('r')}`;
    const refused = await p.sendToDevices({ device_type: 'android', vendor: 'oppo', device_profile: 'unknown', device_ids: [nowhere], data: { alert: 'Listed' } });
    expect(await p.settled(refused.body.objectId)).toMatchObject({ devices: 1, errors: 1, errorReasons: { NoVendorCredentials: 1 } });
    expect(p.fakes.oppo.requestsWith(nowhere)).toEqual([]);
  });

  it('reaches an installation listed by its installationId through its vendor and profile', async () => {
    const id = uniqueName('o');
    await p.saveInstallation({ deviceType: 'android', installationId: id, registrationId: `CN_${id}`, vendor: 'oppo', deviceProfile: 'second' });
    const res = await p.sendToDevices({ device_type: 'android', device_ids: [id], data: { alert: 'By id' } });
    expect(await p.settled(res.body.objectId)).toMatchObject({ successes: 1 });
    expect(p.fakes.oppo.requestsWith(`CN_${id}`).map((request) => request.appKey)).toEqual([oppoApps.second.appKey]);
  });
});
