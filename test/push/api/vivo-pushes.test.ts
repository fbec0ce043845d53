import { createHash } from 'node:crypto';
import { installationRemoval as removal } from '../support/installation-removal.ts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { StoredObject } from '../../../src/core/ports/object-store.ts';
import { vivoApps } from '../../support/gateways/gateway-fixtures.ts';
import type { TestHerald } from '../../support/test-herald.ts';
import { metricValue } from '../support/engine-idle.ts';
import { androidInstallation, dayMs, iosInstallation, startPushHerald, uniqueName, type PushHerald } from '../support/push-herald.ts';

let p: PushHerald;
beforeAll(async () => {
  p = await startPushHerald();
});
afterAll(async () => {
  await p?.close();
});

// Messages are untyped JSON on the wire.
type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

/** A regId as vivo issues them: 23 characters, distinct per `seed`. */
function regId(seed: string): string {
  return createHash('sha256').update(seed).digest('hex').slice(0, 23);
}

/** A vivo installation document for `seed`, with installationId `vivo-<id>`, a regId made of it and vendor `vivo` as the hosted service's SDK writes it. */
function vivoInstallation(id: string, savedAt: number, fields: Record<string, unknown> = {}): StoredObject {
  return androidInstallation(id, savedAt, { installationId: `vivo-${id}`, registrationId: regId(id), vendor: 'vivo', ...fields });
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

/** The message the fake vivo delivered to `token`, exactly once: a single send's body or the saved message of a list send. */
function vivoMessageTo(token: string): Json {
  const deliveries = p.fakes.vivo.log.deliveriesTo(token);
  expect(deliveries, `deliveries to ${token}`).toHaveLength(1);
  return deliveries[0]?.message as Json;
}

/** Saves a vivo device on a fresh channel and answers its registrationId and objectId. */
async function vivoDevice(fields: Record<string, unknown> = {}): Promise<{ token: string; objectId: string; channel: string }> {
  const id = uniqueName('v');
  const channel = uniqueName('c');
  const token = regId(id);
  const objectId = await p.saveInstallation({ deviceType: 'android', installationId: id, registrationId: token, vendor: 'vivo', channels: [channel], ...fields });
  return { token, objectId, channel };
}

const vivoOutcome = (outcome: string) => counted(p.h, 'herald_push_deliveries_total', { gateway: 'vivo', outcome });

describe('a push to iOS, FCM, OPPO and vivo devices at once', () => {
  it('reaches each device at its gateway exactly once, vivo\'s through one saved message per profile and lists, and counts each outcome on the record and in the metrics', async () => {
    const now = p.clock.now();
    const channel = uniqueName('mixed');
    const vivoDefault = Array.from({ length: 120 }, (_, n) => vivoInstallation(`${channel}-d${n}`, now, { channels: [channel] }));
    const vivoSecond = Array.from({ length: 5 }, (_, n) => vivoInstallation(`${channel}-s${n}`, now, { channels: [channel], deviceProfile: 'second' }));
    const uninstalled = [vivoInstallation(`${channel}-gone1`, now, { channels: [channel] }), vivoInstallation(`${channel}-gone2`, now, { channels: [channel] })];
    const ios = [iosInstallation(9401, now, { channels: [channel] })];
    const fcm = [androidInstallation(`${channel}-f1`, now, { channels: [channel] })];
    const oppo = [androidInstallation(`${channel}-o1`, now, { channels: [channel], registrationId: `CN_${channel}-o1`, vendor: 'oppo' })];
    const others = [
      vivoInstallation(`${channel}-noprofile`, now, { channels: [channel], deviceProfile: 'nowhere' }),
      androidInstallation(`${channel}-lc`, now, { channels: [channel], vendor: 'lc' }),
      androidInstallation(`${channel}-odd`, now, { channels: [channel], vendor: 'nokia' }),
    ];
    await p.seed([...vivoDefault, ...vivoSecond, ...uninstalled, ...ios, ...fcm, ...oppo, ...others]);
    p.fakes.vivo.invalidate(2, ...uninstalled.map((installation) => installation.registrationId as string));
    const requestsBefore = p.fakes.vivo.requests.length;
    const before = { delivered: await vivoOutcome('delivered'), invalid: await vivoOutcome('invalid-token'), notSent: await vivoOutcome('not-sent') };

    const res = await p.send({ channels: [channel], data: { alert: 'Mixed', title: 'All of them', ref: 7 } });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    const record = await p.settled(res.body.objectId);

    expect(record).toMatchObject({
      devices: 133,
      successes: 128,
      iosSuccesses: 1,
      androidSuccesses: 127,
      invalidTokens: 2,
      errors: 3,
      errorReasons: { VivoUninstalled: 2, NoVendorCredentials: 1, NoRegistrationId: 1, UnsupportedVendor: 1 },
    });
    for (const installation of [...vivoDefault, ...vivoSecond]) expect(p.fakes.vivo.log.countOf(installation.registrationId as string)).toBe(1);
    expect(p.fakes.apns.log.countOf(ios[0]?.deviceToken as string)).toBe(1);
    expect(p.fakes.fcm.log.countOf(fcm[0]?.registrationId as string)).toBe(1);
    expect(p.fakes.oppo.log.countOf(oppo[0]?.registrationId as string)).toBe(1);
    expect(p.fakes.vivo.requestsWith(others[0]?.registrationId as string)).toEqual([]);

    // Each profile through its own App ID; one saved message per profile, then lists of many regIds.
    const requests = p.fakes.vivo.requests.slice(requestsBefore);
    const tokensOf = (appId: string) => requests.filter((request) => request.appId === appId).flatMap((request) => request.tokens);
    expect(new Set(tokensOf(vivoApps.second.appId))).toEqual(new Set(vivoSecond.map((installation) => installation.registrationId)));
    expect(tokensOf(vivoApps._default.appId)).toHaveLength(122);
    expect(requests.filter((request) => request.endpoint === 'saveList' && request.appId === vivoApps._default.appId)).toHaveLength(1);
    expect(Math.max(...requests.map((request) => request.tokens.length))).toBeGreaterThanOrEqual(20);
    expect(requests.length).toBeLessThanOrEqual(20);

    // The message: a notification opening the app, the custom keys in clientCustomMap.
    expect(vivoMessageTo(vivoDefault[0]?.registrationId as string)).toMatchObject({
      appId: Number(vivoApps._default.appId),
      notifyType: 4,
      title: 'All of them',
      content: 'Mixed',
      skipType: 1,
      classification: 0,
      clientCustomMap: { ref: '7' },
      pushMode: 0,
    });

    // The uninstalled devices' installations are gone, the others stay.
    const found = async (installationId: string) => (await p.h.request('GET', `/1.1/installations?where=${encodeURIComponent(JSON.stringify({ installationId }))}`, { master: true })).body.results;
    await expect.poll(() => found(`vivo-${channel}-gone1`), removal).toEqual([]);
    await expect.poll(() => found(`vivo-${channel}-gone2`), removal).toEqual([]);
    expect(await found(`vivo-${channel}-d0`)).toHaveLength(1);

    expect((await vivoOutcome('delivered')) - before.delivered).toBe(125);
    expect((await vivoOutcome('invalid-token')) - before.invalid).toBe(2);
    expect((await vivoOutcome('not-sent')) - before.notSent).toBe(1);
  });

  it('gives vivo devices data.android with data.vivo over it, vivo\'s own fields into the message', async () => {
    const channel = uniqueName('content');
    await p.saveInstallation({ deviceType: 'android', installationId: uniqueName('f'), registrationId: `fcm-${channel}`, vendor: 'fcm', channels: [channel] });
    const { token } = await vivoDevice({ channels: [channel] });
    const res = await p.send({
      channels: [channel],
      data: {
        alert: 'Body default',
        title: 'Title default',
        ref: 1,
        android: { title: 'For Android', extra: 'android' },
        fcm: { extra: 'fcm only' },
        vivo: { title: 'For vivo', alert: 'vivo body', key1: 'vivo only', classification: 1, category: 'IM', notifyType: 2, skipType: 4, skipContent: 'intent://cn.leancloud.push/detail#Intent;scheme=mixpushscheme;end' },
      },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(await p.settled(res.body.objectId)).toMatchObject({ devices: 2, successes: 2 });

    expect((p.fakes.fcm.deliveriesTo(`fcm-${channel}`)[0]?.message as Json).android.notification).toMatchObject({ title: 'For Android', body: 'Body default' });
    expect(vivoMessageTo(token)).toMatchObject({
      title: 'For vivo',
      content: 'vivo body',
      classification: 1,
      category: 'IM',
      notifyType: 2,
      skipType: 4,
      skipContent: 'intent://cn.leancloud.push/detail#Intent;scheme=mixpushscheme;end',
      clientCustomMap: { ref: '1', extra: 'android', key1: 'vivo only' },
    });
  });

  it('sends a silent push to none of the vivo devices and counts each SilentNotSupported, while FCM devices get it', async () => {
    const channel = uniqueName('silent');
    const fcmToken = `fcm-${channel}`;
    await p.saveInstallation({ deviceType: 'android', installationId: uniqueName('f'), registrationId: fcmToken, vendor: 'fcm', channels: [channel] });
    const first = await vivoDevice({ channels: [channel] });
    const second = await vivoDevice({ channels: [channel], deviceProfile: 'second' });
    const notSentBefore = await vivoOutcome('not-sent');
    const record = await p.settled((await p.send({ channels: [channel], data: { alert: 'sync', silent: true } })).body.objectId);
    expect(record).toMatchObject({ devices: 3, successes: 1, androidSuccesses: 1, errors: 2, errorReasons: { SilentNotSupported: 2 } });
    expect(p.fakes.fcm.deliveriesTo(fcmToken)).toHaveLength(1);
    expect(p.fakes.vivo.requestsWith(first.token)).toEqual([]);
    expect(p.fakes.vivo.requestsWith(second.token)).toEqual([]);
    expect((await vivoOutcome('not-sent')) - notSentBefore).toBe(2);
  });

  it('sets timeToLive from the push\'s expiry', async () => {
    const { token, channel } = await vivoDevice();
    await p.settled((await p.send({ channels: [channel], data: { alert: 'A' }, expiration_interval: 600 })).body.objectId);
    expect(vivoMessageTo(token).timeToLive).toBe(600);
  });
});

describe('vivo answers', () => {
  it('waits out 10072 (too fast) and a 503, then delivers once, with the same requestId each time', async () => {
    const { token, channel } = await vivoDevice();
    p.fakes.vivo.respondNext({ status: 200, body: { result: 10072, desc: '推送速度过快' } }, { status: 503, body: 'Service unavailable' });
    const retriesBefore = await counted(p.h, 'herald_push_retries_total', { gateway: 'vivo', reason: 'Vivo10072' });
    const record = await p.settled((await p.send({ channels: [channel], data: { alert: 'A' } })).body.objectId);
    expect(record).toMatchObject({ devices: 1, successes: 1, errors: 0 });
    const sends = p.fakes.vivo.requestsWith(token);
    expect(sends.map((request) => request.status)).toEqual([200, 503, 200]);
    expect(new Set(sends.map((request) => request.body?.requestId)).size).toBe(1);
    expect(p.fakes.vivo.log.countOf(token)).toBe(1);
    expect((await counted(p.h, 'herald_push_retries_total', { gateway: 'vivo', reason: 'Vivo10072' })) - retriesBefore).toBe(1);
  });

  it('fetches a new authToken when vivo answers 10000, and delivers', async () => {
    const { token, channel } = await vivoDevice();
    await p.settled((await p.send({ channels: [channel], data: { alert: 'first' } })).body.objectId);
    const fetched = p.fakes.vivo.tokenRequests;
    p.fakes.vivo.expireAccessTokens();
    const record = await p.settled((await p.send({ channels: [channel], data: { alert: 'second' } })).body.objectId);
    expect(record).toMatchObject({ successes: 1 });
    expect(p.fakes.vivo.tokenRequests).toBe(fetched + 1);
    expect(p.fakes.vivo.requestsWith(token).map((request) => request.result)).toEqual([0, 10000, 0]);
  });

  it('removes the installation vivo finds no such regId for (status 1), alone in its request, once the profile has delivered, and keeps one ninety days offline (status 3)', async () => {
    const gone = await vivoDevice();
    p.fakes.vivo.invalidate(1, gone.token);
    const record = await p.settled((await p.send({ channels: [gone.channel], data: { alert: 'A' } })).body.objectId);
    expect(record).toMatchObject({ devices: 1, invalidTokens: 1, errorReasons: { VivoUserNotFound: 1 } });
    await expect.poll(() => installationExists(gone.objectId), removal).toBe(false);

    const idle = await vivoDevice();
    p.fakes.vivo.invalidate(3, idle.token);
    expect(await p.settled((await p.send({ channels: [idle.channel], data: { alert: 'A' } })).body.objectId)).toMatchObject({ invalidTokens: 1, errorReasons: { VivoInactive: 1 } });
    expect(await installationExists(idle.objectId)).toBe(true);
  });

  it('fails a push whose custom keys are more than vivo\'s ten, without sending it', async () => {
    const { token, channel } = await vivoDevice();
    const custom = Object.fromEntries(Array.from({ length: 11 }, (_, n) => [`k${n}`, 'v']));
    const res = await p.send({ channels: [channel], data: { alert: 'A', ...custom } });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(await p.settled(res.body.objectId)).toMatchObject({ devices: 1, errors: 1, errorReasons: { PayloadTooLarge: 1 } });
    expect(p.fakes.vivo.requestsWith(token)).toEqual([]);
  });

  it('counts DailyQuotaExceeded once vivo answers 10070, sends nothing more through that profile until midnight in China, then sends again', async () => {
    const spent = await vivoDevice({ deviceProfile: 'second' });
    p.fakes.vivo.respondNext({ status: 200, body: { result: 10070, desc: '发送总量超出限制' } });
    const first = await p.settled((await p.send({ channels: [spent.channel], data: { alert: 'A' } })).body.objectId);
    expect(first).toMatchObject({ devices: 1, errors: 1, errorReasons: { DailyQuotaExceeded: 1 } });
    const later = await vivoDevice({ deviceProfile: 'second' });
    const second = await p.settled((await p.send({ channels: [later.channel], data: { alert: 'B' } })).body.objectId);
    expect(second).toMatchObject({ devices: 1, errors: 1, errorReasons: { DailyQuotaExceeded: 1 } });
    expect(p.fakes.vivo.requestsWith(later.token)).toEqual([]);
    // The _default profile has its own quota.
    const other = await vivoDevice();
    expect(await p.settled((await p.send({ channels: [other.channel], data: { alert: 'C' } })).body.objectId)).toMatchObject({ successes: 1 });

    const chinaOffsetMs = 8 * 3_600_000;
    const now = p.clock.now();
    p.clock.advance(Math.floor((now + chinaOffsetMs) / dayMs + 1) * dayMs - chinaOffsetMs - now);
    const renewed = await p.settled((await p.send({ channels: [later.channel], data: { alert: 'D' } })).body.objectId);
    expect(renewed).toMatchObject({ devices: 1, successes: 1 });
    expect(p.fakes.vivo.log.countOf(later.token)).toBe(1);
  });
});

describe('/1.1/push/devices with vendor vivo', () => {
  it('sends to regIds through the profile named by device_profile, _default without one, and counts a profile the app lacks', async () => {
    const listed = [regId(uniqueName('r')), regId(uniqueName('r'))];
    const res = await p.sendToDevices({ device_type: 'android', vendor: 'vivo', device_profile: 'second', device_ids: listed, data: { alert: 'Listed' } });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(await p.settled(res.body.objectId)).toMatchObject({ devices: 2, successes: 2, androidSuccesses: 2 });
    for (const token of listed) expect(p.fakes.vivo.log.deliveriesTo(token).map((delivery) => delivery.request.appId)).toEqual([vivoApps.second.appId]);

    const single = regId(uniqueName('r'));
    expect(await p.settled((await p.sendToDevices({ device_type: 'android', vendor: 'vivo', device_ids: [single], data: { alert: 'Listed' } })).body.objectId)).toMatchObject({
      successes: 1,
    });
    expect(p.fakes.vivo.requestsWith(single).map((request) => [request.endpoint, request.appId])).toEqual([['send', vivoApps._default.appId]]);

    const nowhere = regId(uniqueName('r'));
    const refused = await p.sendToDevices({ device_type: 'android', vendor: 'vivo', device_profile: 'unknown', device_ids: [nowhere], data: { alert: 'Listed' } });
    expect(await p.settled(refused.body.objectId)).toMatchObject({ devices: 1, errors: 1, errorReasons: { NoVendorCredentials: 1 } });
    expect(p.fakes.vivo.requestsWith(nowhere)).toEqual([]);
  });
});
