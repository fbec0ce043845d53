import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { installationRemoval as removal } from '../support/installation-removal.ts';
import type { StoredObject } from '../../../src/core/ports/object-store.ts';
import { deviceToken, honorApps } from '../../support/gateways/gateway-fixtures.ts';
import type { TestHerald } from '../../support/test-herald.ts';
import { metricValue } from '../support/engine-idle.ts';
import { androidInstallation, iosInstallation, startPushHerald, uniqueName, type PushHerald } from '../support/push-herald.ts';

let p: PushHerald;
beforeAll(async () => {
  p = await startPushHerald();
});
afterAll(async () => {
  await p?.close();
});

// Messages are untyped JSON on the wire.
type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

/** An Honor installation document for `seed`: installationId `honor-<id>`, registrationId `honortoken-<id>`, vendor `honor` as the hosted service's SDK writes it. */
function honorInstallation(id: string, savedAt: number, fields: Record<string, unknown> = {}): StoredObject {
  return androidInstallation(id, savedAt, { installationId: `honor-${id}`, registrationId: `honortoken-${id}`, vendor: 'honor', ...fields });
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

/** The one body the fake Honor accepted for `token`. */
function honorMessageTo(token: string): Json {
  const deliveries = p.fakes.honor.log.deliveriesTo(token);
  expect(deliveries, `deliveries to ${token}`).toHaveLength(1);
  return deliveries[0]?.request.message as Json;
}

/** Saves an Honor device on a fresh channel and answers its registrationId and objectId. */
async function honorDevice(fields: Record<string, unknown> = {}): Promise<{ token: string; objectId: string; channel: string }> {
  const id = uniqueName('o');
  const channel = uniqueName('c');
  const token = `honortoken-${id}`;
  const objectId = await p.saveInstallation({ deviceType: 'android', installationId: id, registrationId: token, vendor: 'honor', channels: [channel], ...fields });
  return { token, objectId, channel };
}

const honorOutcome = (outcome: string) => counted(p.h, 'herald_push_deliveries_total', { gateway: 'honor', outcome });

describe('a push to iOS, FCM, Huawei and Honor devices at once', () => {
  it('reaches each device at its gateway exactly once, batched for Honor, and counts each outcome on the record and in the metrics', async () => {
    const now = p.clock.now();
    const channel = uniqueName('mixed');
    const honorDefault = Array.from({ length: 110 }, (_, n) => honorInstallation(`${channel}-d${n}`, now, { channels: [channel] }));
    const honorSecond = Array.from({ length: 6 }, (_, n) => honorInstallation(`${channel}-s${n}`, now, { channels: [channel], deviceProfile: 'second' }));
    const expired = [honorInstallation(`${channel}-gone1`, now, { channels: [channel] }), honorInstallation(`${channel}-gone2`, now, { channels: [channel], deviceProfile: 'second' })];
    const failing = honorInstallation(`${channel}-busy`, now, { channels: [channel] });
    const ios = [iosInstallation(9301, now, { channels: [channel] })];
    const fcm = [androidInstallation(`${channel}-f1`, now, { channels: [channel] })];
    const hms = [androidInstallation(`${channel}-h1`, now, { channels: [channel], vendor: 'HMS', registrationId: `hmstoken-${channel}-h1` })];
    const noProfile = honorInstallation(`${channel}-noprofile`, now, { channels: [channel], deviceProfile: 'nowhere' });
    await p.seed([...honorDefault, ...honorSecond, ...expired, failing, ...ios, ...fcm, ...hms, noProfile]);
    p.fakes.honor.expire(...expired.map((installation) => installation.registrationId as string));
    p.fakes.honor.fail(failing.registrationId as string);
    const requestsBefore = p.fakes.honor.requests.length;
    const before = { delivered: await honorOutcome('delivered'), invalid: await honorOutcome('invalid-token'), failed: await honorOutcome('failed'), notSent: await honorOutcome('not-sent') };

    const res = await p.send({ channels: [channel], data: { alert: 'Mixed', title: 'All of them', ref: 7 } });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    const record = await p.settled(res.body.objectId);

    expect(record).toMatchObject({
      devices: 123,
      successes: 119,
      iosSuccesses: 1,
      androidSuccesses: 118,
      invalidTokens: 2,
      errors: 2,
      errorReasons: { HonorExpireToken: 2, HonorFailToken: 1, NoVendorCredentials: 1 },
    });
    for (const installation of [...honorDefault, ...honorSecond]) expect(p.fakes.honor.log.countOf(installation.registrationId as string)).toBe(1);
    expect(p.fakes.apns.log.countOf(ios[0]?.deviceToken as string)).toBe(1);
    expect(p.fakes.fcm.log.countOf(fcm[0]?.registrationId as string)).toBe(1);
    expect(p.fakes.hms.log.countOf(hms[0]?.registrationId as string)).toBe(1);
    expect(p.fakes.honor.requestsWith(noProfile.registrationId as string)).toEqual([]);
    // A failing token is not sent again: Honor said it failed, not that it should be retried.
    expect(p.fakes.honor.requestsWith(failing.registrationId as string)).toHaveLength(1);

    // Each profile through its own App ID; many tokens a request, far fewer requests than devices.
    const requests = p.fakes.honor.requests.slice(requestsBefore);
    const tokensOf = (appId: string) => requests.filter((request) => request.appId === appId).flatMap((request) => request.tokens);
    expect(new Set(tokensOf(honorApps.second.appId))).toEqual(new Set([...honorSecond, expired[1]].map((installation) => installation?.registrationId)));
    expect(tokensOf(honorApps._default.appId)).toHaveLength(112);
    expect(Math.max(...requests.map((request) => request.tokens.length))).toBeGreaterThanOrEqual(20);
    expect(requests.length).toBeLessThanOrEqual(16);

    // The message: a notification with the click intent, the data beside it.
    const message = honorMessageTo(honorDefault[0]?.registrationId as string);
    expect(message.android.notification).toMatchObject({ title: 'All of them', body: 'Mixed', clickAction: { type: 1 } });
    expect(message.android.notification.clickAction.intent).toContain(`S.content=${encodeURIComponent('{"ref":7}')};`);
    expect(JSON.parse(message.data as string)).toEqual({ alert: 'Mixed', title: 'All of them', ref: 7 });

    // The expired tokens' installations are gone, the failing one and the others stay.
    const byInstallationId = async (installationId: string) => (await p.h.request('GET', `/1.1/installations?where=${encodeURIComponent(JSON.stringify({ installationId }))}`, { master: true })).body.results;
    await expect.poll(() => byInstallationId(`honor-${channel}-gone1`), removal).toEqual([]);
    await expect.poll(() => byInstallationId(`honor-${channel}-gone2`), removal).toEqual([]);
    expect(await byInstallationId(`honor-${channel}-busy`)).toHaveLength(1);
    expect(await byInstallationId(`honor-${channel}-d0`)).toHaveLength(1);

    expect((await honorOutcome('delivered')) - before.delivered).toBe(116);
    expect((await honorOutcome('invalid-token')) - before.invalid).toBe(2);
    expect((await honorOutcome('failed')) - before.failed).toBe(1);
    expect((await honorOutcome('not-sent')) - before.notSent).toBe(1);
  });

  it('gives Honor devices data.android then data.honor, its request fields into the request, over the base', async () => {
    const channel = uniqueName('content');
    const ios = deviceToken(9401);
    await p.saveInstallation({ deviceType: 'ios', deviceToken: ios, channels: [channel] });
    await p.saveInstallation({ deviceType: 'android', installationId: uniqueName('h'), registrationId: `hmstoken-${channel}`, vendor: 'HMS', channels: [channel] });
    await p.saveInstallation({ deviceType: 'android', installationId: uniqueName('o'), registrationId: `honortoken-${channel}`, vendor: 'honor', channels: [channel] });
    const res = await p.send({
      channels: [channel],
      data: {
        alert: 'Body default',
        title: 'Title default',
        android: { title: 'For Android', shared: 1 },
        hms: { title: 'For Huawei' },
        honor: { title: 'For Honor', targetUserType: 1, importance: 'NORMAL', extra: 'honor only', message: { android: { biTag: 'spring' } } },
      },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(await p.settled(res.body.objectId)).toMatchObject({ devices: 3, successes: 3 });

    const honor = honorMessageTo(`honortoken-${channel}`);
    expect(honor.android).toMatchObject({ targetUserType: 1, biTag: 'spring' });
    expect(honor.android.notification).toMatchObject({ title: 'For Honor', body: 'Body default', importance: 'NORMAL' });
    expect(JSON.parse(honor.data as string)).toEqual({ alert: 'Body default', title: 'For Honor', shared: 1, extra: 'honor only' });

    const hms = p.fakes.hms.log.deliveriesTo(`hmstoken-${channel}`)[0]?.request.message as Json;
    expect(hms.android.notification.title).toBe('For Huawei');
    expect(JSON.parse(hms.data as string)).toEqual({ alert: 'Body default', title: 'For Huawei', shared: 1 });
    const apns = JSON.parse((p.fakes.apns.log.deliveriesTo(ios)[0]?.payload as Buffer).toString()) as Json;
    expect(apns.honor).toBeUndefined();
    expect(apns.aps.alert).toEqual({ title: 'Title default', body: 'Body default' });
  });

  it('refuses data.honor that is not an object, and an alert in it that is not a string, before anything is stored', async () => {
    const before = await p.recordCount();
    const notObject = await p.send({ channels: [uniqueName('c')], data: { alert: 'A', honor: 'title' } });
    expect(notObject.status).toBe(400);
    expect(notObject.body).toEqual({ code: 111, error: 'data.honor must be an object' });
    const badAlert = await p.send({ channels: [uniqueName('c')], data: { alert: 'A', honor: { alert: 3 } } });
    expect(badAlert.status).toBe(400);
    expect(await p.recordCount()).toBe(before);
  });
});

describe('Honor messages', () => {
  it('sends a silent push as a pass-through message, the data alone', async () => {
    const { token, channel } = await honorDevice();
    const res = await p.send({ channels: [channel], data: { alert: 'sync', silent: true, since: 12 } });
    expect(await p.settled(res.body.objectId)).toMatchObject({ successes: 1, androidSuccesses: 1, errors: 0 });
    const message = honorMessageTo(token);
    expect(message.android?.notification).toBeUndefined();
    expect(message.token).toEqual([token]);
    expect(JSON.parse(message.data as string)).toEqual({ alert: 'sync', silent: true, since: 12 });
  });

  it('sets the TTL from the push\'s expiry and sends the timestamp header of the moment it leaves', async () => {
    const { token, channel } = await honorDevice();
    const res = await p.send({ channels: [channel], data: { alert: 'A' }, expiration_interval: 600 });
    await p.settled(res.body.objectId);
    expect(honorMessageTo(token).android.ttl).toBe('600s');
    const [request] = p.fakes.honor.requestsWith(token);
    expect(Number(request?.headers.timestamp)).toBe(p.clock.now());
  });
});

describe('Honor answers', () => {
  it('removes an installation whose token Honor lists as expired, even alone in its request', async () => {
    const gone = await honorDevice();
    p.fakes.honor.expire(gone.token);
    const record = await p.settled((await p.send({ channels: [gone.channel], data: { alert: 'A' } })).body.objectId);
    expect(record).toMatchObject({ devices: 1, invalidTokens: 1, errorReasons: { HonorExpireToken: 1 } });
    await expect.poll(() => installationExists(gone.objectId), removal).toBe(false);
  });

  it('keeps the installation on 80300007 (every token invalid) for a profile that has not delivered yet', async () => {
    // A fresh Herald: its profiles have delivered nothing, so the answer may speak of the credentials.
    const fresh = await startPushHerald();
    try {
      const channel = uniqueName('c');
      const objectId = await fresh.saveInstallation({ deviceType: 'android', installationId: uniqueName('o'), registrationId: `honortoken-${channel}`, vendor: 'honor', channels: [channel] });
      fresh.fakes.honor.respondNext({ status: 400, body: { code: 80300007, message: 'All the tokens are invalid' } });
      const record = await fresh.settled((await fresh.send({ channels: [channel], data: { alert: 'A' } })).body.objectId);
      expect(record).toMatchObject({ devices: 1, invalidTokens: 1, errorReasons: { Honor80300007: 1 } });
      expect((await fresh.h.request('GET', `/1.1/installations/${objectId}`, { master: true })).status).toBe(200);
    } finally {
      await fresh.close();
    }
  });

  it('waits out flow control (503, Retry-After), a rate limit (429) and a system error, then delivers once', async () => {
    const { token, channel } = await honorDevice();
    p.fakes.honor.respondNext(
      { status: 503, body: {}, retryAfter: 1 },
      { status: 429, body: '' },
      { status: 500, body: { code: 81000001, message: 'System inner error' } },
    );
    const retriesBefore = await counted(p.h, 'herald_push_retries_total', { gateway: 'honor', reason: 'HonorFlowControl' });
    const record = await p.settled((await p.send({ channels: [channel], data: { alert: 'A' } })).body.objectId);
    expect(record).toMatchObject({ devices: 1, successes: 1, errors: 0 });
    expect(p.fakes.honor.requestsWith(token).map((request) => request.status)).toEqual([503, 429, 500, 200]);
    expect(p.fakes.honor.log.countOf(token)).toBe(1);
    expect((await counted(p.h, 'herald_push_retries_total', { gateway: 'honor', reason: 'HonorFlowControl' })) - retriesBefore).toBe(2);
  });

  it('gives up after the retries and counts the last reason', async () => {
    const { token, channel } = await honorDevice();
    p.fakes.honor.respondNext(...Array.from({ length: 4 }, () => ({ status: 502, body: 'Bad gateway' })));
    const record = await p.settled((await p.send({ channels: [channel], data: { alert: 'A' } })).body.objectId);
    expect(record).toMatchObject({ devices: 1, successes: 0, errors: 1, errorReasons: { HonorServerError: 1 } });
    expect(p.fakes.honor.requestsWith(token)).toHaveLength(4);
    expect(p.fakes.honor.log.countOf(token)).toBe(0);
  });

  it('fetches a new access token when Honor answers that it expired, and delivers', async () => {
    const { token, channel } = await honorDevice();
    await p.settled((await p.send({ channels: [channel], data: { alert: 'first' } })).body.objectId);
    const fetched = p.fakes.honor.tokenRequests;
    p.fakes.honor.expireAccessTokens();
    const record = await p.settled((await p.send({ channels: [channel], data: { alert: 'second' } })).body.objectId);
    expect(record).toMatchObject({ successes: 1 });
    expect(p.fakes.honor.tokenRequests).toBe(fetched + 1);
    expect(p.fakes.honor.requestsWith(token).map((request) => request.code)).toEqual(['200', '80200003', '200']);
  });

  it('fails a message over 4096 bytes without sending it', async () => {
    const { token, channel } = await honorDevice();
    const res = await p.send({ channels: [channel], data: { alert: 'A', note: '文'.repeat(500) } });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(await p.settled(res.body.objectId)).toMatchObject({ devices: 1, errors: 1, errorReasons: { PayloadTooLarge: 1 } });
    expect(p.fakes.honor.requestsWith(token)).toEqual([]);
  });
});

describe('/1.1/push/devices with vendor honor', () => {
  it('sends to registrationIds of that vendor through the profile named by device_profile', async () => {
    const tokens = [`honortoken-${uniqueName('r')}`, `honortoken-${uniqueName('r')}`];
    const res = await p.sendToDevices({ device_type: 'android', vendor: 'honor', device_profile: 'second', device_ids: tokens, data: { alert: 'Listed' } });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(await p.settled(res.body.objectId)).toMatchObject({ devices: 2, successes: 2, androidSuccesses: 2 });
    for (const token of tokens) expect(p.fakes.honor.log.deliveriesTo(token).map((delivery) => delivery.request.appId)).toEqual([honorApps.second.appId]);
    expect(p.fakes.honor.requestsWith(tokens[0] as string)[0]?.tokens.sort()).toEqual([...tokens].sort());
  });

  it('uses the _default profile without device_profile, and counts a profile the app lacks NoVendorCredentials', async () => {
    const token = `honortoken-${uniqueName('r')}`;
    const sent = await p.sendToDevices({ device_type: 'android', vendor: 'honor', device_ids: [token], data: { alert: 'Listed' } });
    expect(await p.settled(sent.body.objectId)).toMatchObject({ successes: 1 });
    expect(p.fakes.honor.log.deliveriesTo(token)[0]?.request.appId).toBe(honorApps._default.appId);
    const other = `honortoken-${uniqueName('r')}`;
    const refused = await p.sendToDevices({ device_type: 'android', vendor: 'honor', device_profile: 'unknown', device_ids: [other], data: { alert: 'Listed' } });
    expect(await p.settled(refused.body.objectId)).toMatchObject({ devices: 1, errors: 1, errorReasons: { NoVendorCredentials: 1 } });
    expect(p.fakes.honor.requestsWith(other)).toEqual([]);
  });

  it('refuses Honor in another case than the SDK writes it', async () => {
    const res = await p.sendToDevices({ device_type: 'android', vendor: 'HONOR', device_ids: ['honortoken-x'], data: { alert: 'A' } });
    expect(res.status).toBe(400);
    expect(res.body.code).toBe(1);
    expect(res.body.error).toContain('vendor must be one of');
  });
});

describe('an app without Honor credentials', () => {
  let bare: PushHerald;
  beforeAll(async () => {
    bare = await startPushHerald({ appPush: (fakes) => ({ apns: fakes.appPush.apns, fcm: fakes.appPush.fcm, hms: fakes.appPush.hms }) });
  });
  afterAll(async () => {
    await bare?.close();
  });

  it('sends to none of its Honor devices and counts each NoVendorCredentials', async () => {
    const channel = uniqueName('bare');
    await bare.saveInstallation({ deviceType: 'android', installationId: uniqueName('o'), registrationId: `honortoken-${channel}`, vendor: 'honor', channels: [channel] });
    await bare.saveInstallation({ deviceType: 'android', installationId: uniqueName('f'), registrationId: `fcm-${channel}`, vendor: 'fcm', channels: [channel] });
    const record = await bare.settled((await bare.send({ channels: [channel], data: { alert: 'A' } })).body.objectId);
    expect(record).toMatchObject({ devices: 2, successes: 1, errors: 1, errorReasons: { NoVendorCredentials: 1 } });
    expect(bare.fakes.honor.requests).toEqual([]);
  });
});
