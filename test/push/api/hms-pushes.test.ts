import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { installationRemoval as removal } from '../support/installation-removal.ts';
import { deviceToken, hmsApps } from '../../support/gateways/gateway-fixtures.ts';
import { metricValue } from '../support/engine-idle.ts';
import type { TestHerald } from '../../support/test-herald.ts';
import { hmsInstallation, iosInstallation, androidInstallation, startPushHerald, uniqueName, type PushHerald } from '../support/push-herald.ts';

let p: PushHerald;
beforeAll(async () => {
  p = await startPushHerald();
});
afterAll(async () => {
  await p?.close();
});

// Messages are untyped JSON on the wire.
type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

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

/** The one message the fake HMS accepted for `token`. */
function hmsMessageTo(token: string): Json {
  const deliveries = p.fakes.hms.log.deliveriesTo(token);
  expect(deliveries, `deliveries to ${token}`).toHaveLength(1);
  return deliveries[0]?.request.message as Json;
}

/** Saves an HMS device on a fresh channel and answers its registrationId and objectId. */
async function hmsDevice(fields: Record<string, unknown> = {}): Promise<{ token: string; objectId: string; channel: string }> {
  const id = uniqueName('h');
  const channel = uniqueName('c');
  const token = `hmstoken-${id}`;
  const objectId = await p.saveInstallation({ deviceType: 'android', installationId: id, registrationId: token, vendor: 'HMS', channels: [channel], ...fields });
  return { token, objectId, channel };
}

describe('a push to iOS, FCM and Huawei devices at once', () => {
  it('reaches each device at its gateway exactly once, batched for HMS, and counts each outcome on the record and in the metrics', async () => {
    const now = p.clock.now();
    const channel = uniqueName('mixed');
    const hmsDefault = Array.from({ length: 120 }, (_, n) => hmsInstallation(`${channel}-d${n}`, now, { channels: [channel] }));
    const hmsSecond = Array.from({ length: 5 }, (_, n) => hmsInstallation(`${channel}-s${n}`, now, { channels: [channel], deviceProfile: 'second' }));
    const invalid = [hmsInstallation(`${channel}-gone1`, now, { channels: [channel] }), hmsInstallation(`${channel}-gone2`, now, { channels: [channel] })];
    const ios = [iosInstallation(9001, now, { channels: [channel] }), iosInstallation(9002, now, { channels: [channel] })];
    const fcm = [androidInstallation(`${channel}-f1`, now, { channels: [channel] }), androidInstallation(`${channel}-f2`, now, { channels: [channel] })];
    const others = [
      hmsInstallation(`${channel}-noprofile`, now, { channels: [channel], deviceProfile: 'nowhere' }),
      androidInstallation(`${channel}-lc`, now, { channels: [channel], vendor: 'lc' }),
      androidInstallation(`${channel}-odd`, now, { channels: [channel], vendor: 'nokia' }),
    ];
    await p.seed([...hmsDefault, ...hmsSecond, ...invalid, ...ios, ...fcm, ...others]);
    p.fakes.hms.invalidate(...invalid.map((installation) => installation.registrationId as string));
    const requestsBefore = p.fakes.hms.requests.length;
    const hmsDelivered = () => metricValue(p.h, 'herald_push_deliveries_total', { gateway: 'hms', outcome: 'delivered' });
    const hmsInvalid = () => metricValue(p.h, 'herald_push_deliveries_total', { gateway: 'hms', outcome: 'invalid-token' });
    const hmsNotSent = () => metricValue(p.h, 'herald_push_deliveries_total', { gateway: 'hms', outcome: 'not-sent' });
    const before = { delivered: await hmsDelivered(), invalid: await hmsInvalid(), notSent: await hmsNotSent() };

    const res = await p.send({ channels: [channel], data: { alert: 'Mixed', title: 'All of them', ref: 7 } });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    const record = await p.settled(res.body.objectId);

    expect(record).toMatchObject({
      devices: 134,
      successes: 129,
      iosSuccesses: 2,
      androidSuccesses: 127,
      invalidTokens: 2,
      errors: 3,
      errorReasons: { HmsIllegalToken: 2, NoVendorCredentials: 1, NoRegistrationId: 1, UnsupportedVendor: 1 },
    });
    for (const installation of [...hmsDefault, ...hmsSecond]) expect(p.fakes.hms.log.countOf(installation.registrationId as string)).toBe(1);
    for (const installation of ios) expect(p.fakes.apns.log.countOf(installation.deviceToken as string)).toBe(1);
    for (const installation of fcm) expect(p.fakes.fcm.log.countOf(installation.registrationId as string)).toBe(1);
    expect(p.fakes.hms.log.countOf(others[0]?.registrationId as string)).toBe(0);

    // Each profile through its own App ID; many tokens a request, far fewer requests than devices.
    const requests = p.fakes.hms.requests.slice(requestsBefore);
    const tokensOf = (appId: string) => requests.filter((request) => request.appId === appId).flatMap((request) => request.tokens);
    expect(new Set(tokensOf(hmsApps.second.appId))).toEqual(new Set(hmsSecond.map((installation) => installation.registrationId)));
    expect(tokensOf(hmsApps._default.appId)).toHaveLength(122);
    expect(Math.max(...requests.map((request) => request.tokens.length))).toBeGreaterThanOrEqual(20);
    expect(requests.length).toBeLessThanOrEqual(16);

    // The message: a notification with the click intent, the data beside it.
    const message = hmsMessageTo(hmsDefault[0]?.registrationId as string);
    expect(message.android.notification).toMatchObject({ title: 'All of them', body: 'Mixed' });
    expect(message.android.notification.click_action.intent).toContain(`S.content=${encodeURIComponent('{"ref":7}')};`);
    expect(JSON.parse(message.data as string)).toEqual({ alert: 'Mixed', title: 'All of them', ref: 7 });

    // The invalid tokens' installations are gone, the others stay.
    const objectIdOf = async (installationId: string) => (await p.h.request('GET', `/1.1/installations?where=${encodeURIComponent(JSON.stringify({ installationId }))}`, { master: true })).body.results;
    await expect.poll(() => objectIdOf(`hms-${channel}-gone1`), removal).toEqual([]);
    await expect.poll(() => objectIdOf(`hms-${channel}-gone2`), removal).toEqual([]);
    expect(await objectIdOf(`hms-${channel}-d0`)).toHaveLength(1);

    expect((await hmsDelivered()) - before.delivered).toBe(125);
    expect((await hmsInvalid()) - before.invalid).toBe(2);
    expect((await hmsNotSent()) - before.notSent).toBe(1);
  });

  it('gives each platform its own content: data.ios, data.android with data.fcm, data.android with data.hms', async () => {
    const channel = uniqueName('content');
    const ios = deviceToken(9101);
    await p.saveInstallation({ deviceType: 'ios', deviceToken: ios, channels: [channel] });
    await p.saveInstallation({ deviceType: 'android', installationId: uniqueName('f'), registrationId: `fcm-${channel}`, vendor: 'fcm', channels: [channel] });
    await p.saveInstallation({ deviceType: 'android', installationId: uniqueName('h'), registrationId: `hmstoken-${channel}`, vendor: 'HMS', channels: [channel] });
    const res = await p.send({
      channels: [channel],
      data: {
        alert: 'Body default',
        title: 'Title default',
        ios: { alert: { title: 'For iOS', body: 'iOS body' } },
        android: { title: 'For Android' },
        fcm: { extra: 'fcm only' },
        hms: { title: 'For Huawei', target_user_type: 1 },
      },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(await p.settled(res.body.objectId)).toMatchObject({ devices: 3, successes: 3 });

    const apns = JSON.parse((p.fakes.apns.log.deliveriesTo(ios)[0]?.payload as Buffer).toString()) as Json;
    expect(apns.aps.alert).toEqual({ title: 'For iOS', body: 'iOS body' });
    for (const key of ['ios', 'android', 'fcm', 'hms']) expect(apns[key]).toBeUndefined();

    const fcm = p.fakes.fcm.deliveriesTo(`fcm-${channel}`)[0]?.message as Json;
    expect(fcm.android.notification).toMatchObject({ title: 'For Android', body: 'Body default' });
    expect(fcm.data.extra).toBe('fcm only');
    expect(JSON.parse(fcm.data.payload as string)).toEqual({ alert: 'Body default', title: 'For Android', extra: 'fcm only' });

    const hms = hmsMessageTo(`hmstoken-${channel}`);
    expect(hms.android.notification).toMatchObject({ title: 'For Huawei', body: 'Body default' });
    expect(hms.android.target_user_type).toBe(1);
    expect(JSON.parse(hms.data as string)).toEqual({ alert: 'Body default', title: 'For Huawei' });
  });

  it('refuses a platform key that is not an object, before anything is stored', async () => {
    const res = await p.send({ channels: [uniqueName('c')], data: { alert: 'A', hms: 'title' } });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ code: 111, error: 'data.hms must be an object' });
  });
});

describe('Huawei messages', () => {
  it('sends a silent push as a pass-through message, the data alone', async () => {
    const { token, channel } = await hmsDevice();
    const res = await p.send({ channels: [channel], data: { alert: 'sync', silent: true, since: 12 } });
    expect(await p.settled(res.body.objectId)).toMatchObject({ successes: 1, androidSuccesses: 1 });
    const message = hmsMessageTo(token);
    expect(message.android?.notification).toBeUndefined();
    expect(JSON.parse(message.data as string)).toEqual({ alert: 'sync', silent: true, since: 12 });
  });

  it('sets the TTL from the push\'s expiry and the notification channel from _notificationChannel', async () => {
    const { token, channel } = await hmsDevice();
    const res = await p.send({ channels: [channel], data: { alert: 'A' }, expiration_interval: 600, _notificationChannel: 'orders' });
    await p.settled(res.body.objectId);
    const message = hmsMessageTo(token);
    expect(message.android.ttl).toBe('600s');
    expect(message.android.notification.channel_id).toBe('orders');
  });
});

describe('Huawei answers', () => {
  it('removes the installation HMS answers 80300007 for, alone in its request, once the profile has delivered', async () => {
    const warmUp = await hmsDevice();
    await p.settled((await p.send({ channels: [warmUp.channel], data: { alert: 'first' } })).body.objectId);
    const gone = await hmsDevice();
    p.fakes.hms.invalidate(gone.token);
    const record = await p.settled((await p.send({ channels: [gone.channel], data: { alert: 'A' } })).body.objectId);
    expect(record).toMatchObject({ devices: 1, invalidTokens: 1, errorReasons: { Hms80300007: 1 } });
    await expect.poll(() => installationExists(gone.objectId), removal).toBe(false);
  });

  it('waits out flow control (503, Retry-After) and a system error, then delivers once', async () => {
    const { token, channel } = await hmsDevice();
    p.fakes.hms.respondNext({ status: 503, body: {}, retryAfter: 1 }, { status: 500, body: { code: '81000001', msg: 'System inner error' } });
    const retriesBefore = await counted(p.h, 'herald_push_retries_total', { gateway: 'hms', reason: 'HmsFlowControl' });
    const record = await p.settled((await p.send({ channels: [channel], data: { alert: 'A' } })).body.objectId);
    expect(record).toMatchObject({ devices: 1, successes: 1, errors: 0 });
    expect(p.fakes.hms.requestsWith(token).map((request) => request.status)).toEqual([503, 500, 200]);
    expect(p.fakes.hms.log.countOf(token)).toBe(1);
    expect((await counted(p.h, 'herald_push_retries_total', { gateway: 'hms', reason: 'HmsFlowControl' })) - retriesBefore).toBe(1);
  });

  it('fetches a new access token when HMS answers that it expired, and delivers', async () => {
    const { token, channel } = await hmsDevice();
    // A first push so that the profile holds a token, which then expires at HMS.
    await p.settled((await p.send({ channels: [channel], data: { alert: 'first' } })).body.objectId);
    const fetched = p.fakes.hms.tokenRequests;
    p.fakes.hms.expireAccessTokens();
    const record = await p.settled((await p.send({ channels: [channel], data: { alert: 'second' } })).body.objectId);
    expect(record).toMatchObject({ successes: 1 });
    expect(p.fakes.hms.tokenRequests).toBe(fetched + 1);
    expect(p.fakes.hms.requestsWith(token).map((request) => request.code)).toEqual(['80000000', '80200003', '80000000']);
  });

  it('fails a message HMS would refuse as too large without sending it', async () => {
    const { token, channel } = await hmsDevice();
    // Within what FCM takes, but the click intent URL-encodes the custom keys: three bytes of CJK become nine.
    const res = await p.send({ channels: [channel], data: { alert: 'A', note: '文'.repeat(500) } });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(await p.settled(res.body.objectId)).toMatchObject({ devices: 1, errors: 1, errorReasons: { PayloadTooLarge: 1 } });
    expect(p.fakes.hms.requestsWith(token)).toEqual([]);
  });
});

describe('/1.1/push/devices with a vendor', () => {
  it('sends to registrationIds of that vendor through the profile named by device_profile', async () => {
    const tokens = [`hmstoken-${uniqueName('r')}`, `hmstoken-${uniqueName('r')}`];
    const res = await p.sendToDevices({ device_type: 'android', vendor: 'HMS', device_profile: 'second', device_ids: tokens, data: { alert: 'Listed' } });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(await p.settled(res.body.objectId)).toMatchObject({ devices: 2, successes: 2, androidSuccesses: 2 });
    for (const token of tokens) expect(p.fakes.hms.log.deliveriesTo(token).map((delivery) => delivery.request.appId)).toEqual([hmsApps.second.appId]);
  });

  it('uses the _default profile without device_profile, and counts a profile the app lacks NoVendorCredentials', async () => {
    const token = `hmstoken-${uniqueName('r')}`;
    const sent = await p.sendToDevices({ device_type: 'android', vendor: 'huawei', device_ids: [token], data: { alert: 'Listed' } });
    expect(await p.settled(sent.body.objectId)).toMatchObject({ successes: 1 });
    expect(p.fakes.hms.log.deliveriesTo(token)[0]?.request.appId).toBe(hmsApps._default.appId);
    const other = `hmstoken-${uniqueName('r')}`;
    const refused = await p.sendToDevices({ device_type: 'android', vendor: 'HMS', device_profile: 'unknown', device_ids: [other], data: { alert: 'Listed' } });
    expect(await p.settled(refused.body.objectId)).toMatchObject({ devices: 1, errors: 1, errorReasons: { NoVendorCredentials: 1 } });
    expect(p.fakes.hms.requestsWith(other)).toEqual([]);
  });

  it.each([
    [{ vendor: 'nokia' }, 1, 'vendor must be one of'],
    [{ vendor: 3 }, 111, 'vendor must be a string'],
    [{ vendor: 'HMS', device_ids: ['has space'] }, 114, 'invalid registrationId'],
  ])('refuses %j with code %i', async (params, code, error) => {
    const res = await p.sendToDevices({ device_type: 'android', device_ids: ['hmstoken-x'], data: { alert: 'A' }, ...params });
    expect(res.status).toBe(400);
    expect(res.body.code).toBe(code);
    expect(res.body.error).toContain(error);
  });
});

describe('an app without Huawei credentials', () => {
  let bare: PushHerald;
  beforeAll(async () => {
    bare = await startPushHerald({ appPush: (fakes) => ({ apns: fakes.appPush.apns, fcm: fakes.appPush.fcm }) });
  });
  afterAll(async () => {
    await bare?.close();
  });

  it('sends to none of its Huawei devices and counts each NoVendorCredentials', async () => {
    const channel = uniqueName('bare');
    await bare.saveInstallation({ deviceType: 'android', installationId: uniqueName('h'), registrationId: `hmstoken-${channel}`, vendor: 'HMS', channels: [channel] });
    await bare.saveInstallation({ deviceType: 'android', installationId: uniqueName('f'), registrationId: `fcm-${channel}`, vendor: 'fcm', channels: [channel] });
    const record = await bare.settled((await bare.send({ channels: [channel], data: { alert: 'A' } })).body.objectId);
    expect(record).toMatchObject({ devices: 2, successes: 1, errors: 1, errorReasons: { NoVendorCredentials: 1 } });
    expect(bare.fakes.hms.requests).toEqual([]);
  });
});
