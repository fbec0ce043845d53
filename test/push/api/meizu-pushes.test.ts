import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { installationRemoval as removal } from '../support/installation-removal.ts';
import type { StoredObject } from '../../../src/core/ports/object-store.ts';
import { meizuSign } from '../../../src/push/gateways/makers/meizu/meizu-sign.ts';
import { meizuApps } from '../../support/gateways/gateway-fixtures.ts';
import { secretFile } from '../../support/push-gateways.ts';
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

/** A Meizu installation document for `seed`: installationId `mz-<id>`, registrationId `mzpushid-<id>`, vendor `mz` as the hosted service's SDK writes it. */
function meizuInstallation(id: string, savedAt: number, fields: Record<string, unknown> = {}): StoredObject {
  return androidInstallation(id, savedAt, { installationId: `mz-${id}`, registrationId: `mzpushid-${id}`, vendor: 'mz', ...fields });
}

/** A counter's value, 0 while it has no such series yet. */
async function counted(h: TestHerald, name: string, labels: Record<string, string>): Promise<number> {
  try {
    return await metricValue(h, name, labels);
  } catch {
    return 0;
  }
}

async function installationExists(h: PushHerald, objectId: string): Promise<boolean> {
  const res = await h.h.request('GET', `/1.1/installations/${objectId}`, { master: true });
  expect([200, 404]).toContain(res.status);
  return res.status === 200;
}

/** The one messageJson the fake Meizu accepted for `pushId`. */
function meizuMessageTo(pushId: string, h: PushHerald = p): Json {
  const deliveries = h.fakes.meizu.log.deliveriesTo(pushId);
  expect(deliveries, `deliveries to ${pushId}`).toHaveLength(1);
  return deliveries[0]?.request.message as Json;
}

/** Saves a Meizu device on a fresh channel and answers its registrationId and objectId. */
async function meizuDevice(h: PushHerald = p, fields: Record<string, unknown> = {}): Promise<{ pushId: string; objectId: string; channel: string }> {
  const id = uniqueName('m');
  const channel = uniqueName('c');
  const pushId = `mzpushid-${id}`;
  const objectId = await h.saveInstallation({ deviceType: 'android', installationId: id, registrationId: pushId, vendor: 'mz', channels: [channel], ...fields });
  return { pushId, objectId, channel };
}

const meizuOutcome = (outcome: string, h: PushHerald = p) => counted(h.h, 'herald_push_deliveries_total', { gateway: 'meizu', outcome });

describe('a push to iOS, FCM, Honor and Meizu devices at once', () => {
  it('reaches each device at its gateway exactly once, in signed requests of at most 100 pushIds, and counts each outcome on the record and in the metrics', async () => {
    const now = p.clock.now();
    const channel = uniqueName('mixed');
    const meizuDefault = Array.from({ length: 230 }, (_, n) => meizuInstallation(`${channel}-d${n}`, now, { channels: [channel], vendor: ['mz', 'meizu', 'flyme'][n % 3] }));
    const meizuSecond = Array.from({ length: 5 }, (_, n) => meizuInstallation(`${channel}-s${n}`, now, { channels: [channel], deviceProfile: 'second' }));
    const unregistered = meizuInstallation(`${channel}-gone`, now, { channels: [channel] });
    const illegal = meizuInstallation(`${channel}-bad`, now, { channels: [channel], deviceProfile: 'second' });
    const switchedOff = meizuInstallation(`${channel}-off`, now, { channels: [channel] });
    const noProfile = meizuInstallation(`${channel}-noprofile`, now, { channels: [channel], deviceProfile: 'nowhere' });
    const ios = iosInstallation(9501, now, { channels: [channel] });
    const fcm = androidInstallation(`${channel}-f1`, now, { channels: [channel] });
    const honor = androidInstallation(`${channel}-o1`, now, { channels: [channel], vendor: 'honor', registrationId: `honortoken-${channel}` });
    await p.seed([...meizuDefault, ...meizuSecond, unregistered, illegal, switchedOff, noProfile, ios, fcm, honor]);
    const idOf = (installation: StoredObject) => installation.registrationId as string;
    p.fakes.meizu.mark('110002', idOf(unregistered));
    p.fakes.meizu.mark('110003', idOf(illegal));
    p.fakes.meizu.mark('110010', idOf(switchedOff));
    const requestsBefore = p.fakes.meizu.requests.length;
    const before = { delivered: await meizuOutcome('delivered'), invalid: await meizuOutcome('invalid-token'), failed: await meizuOutcome('failed'), notSent: await meizuOutcome('not-sent') };

    const res = await p.send({ channels: [channel], data: { alert: 'Mixed', title: 'All of them', ref: 7 } });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    const record = await p.settled(res.body.objectId);

    expect(record).toMatchObject({
      devices: 242,
      successes: 238,
      iosSuccesses: 1,
      androidSuccesses: 237,
      invalidTokens: 2,
      errors: 2,
      errorReasons: { Meizu110002: 1, Meizu110003: 1, MeizuSwitchedOff: 1, NoVendorCredentials: 1 },
    });
    for (const installation of [...meizuDefault, ...meizuSecond]) expect(p.fakes.meizu.log.countOf(idOf(installation))).toBe(1);
    expect(p.fakes.apns.log.countOf(ios.deviceToken as string)).toBe(1);
    expect(p.fakes.fcm.log.countOf(idOf(fcm))).toBe(1);
    expect(p.fakes.honor.log.countOf(idOf(honor))).toBe(1);
    expect(p.fakes.meizu.requestsWith(idOf(noProfile))).toEqual([]);

    // Each profile through its own App ID, signed with its own secret; 100 pushIds a request at most.
    const requests = p.fakes.meizu.requests.slice(requestsBefore);
    const idsOf = (appId: string) => requests.filter((request) => request.appId === appId).flatMap((request) => request.pushIds);
    expect(new Set(idsOf(meizuApps.second.appId))).toEqual(new Set([...meizuSecond, illegal].map(idOf)));
    expect(idsOf(meizuApps._default.appId)).toHaveLength(232);
    const sizes = requests.map((request) => request.pushIds.length);
    expect(Math.max(...sizes)).toBeLessThanOrEqual(100);
    expect(Math.max(...sizes)).toBeGreaterThanOrEqual(20);
    expect(requests.length).toBeLessThanOrEqual(16);
    for (const request of requests) {
      const secret = request.appId === meizuApps.second.appId ? meizuApps.second.appSecret : meizuApps._default.appSecret;
      expect(request.params.sign).toBe(meizuSign(request.params, secret));
    }

    // The message: a notification opening the app, the custom keys as the click's parameters.
    expect(meizuMessageTo(idOf(meizuDefault[0] as StoredObject))).toEqual({
      noticeBarInfo: { noticeMsgType: 0, title: 'All of them', content: 'Mixed' },
      clickTypeInfo: { clickType: 0, parameters: { ref: 7 } },
      pushTimeInfo: { offLine: 1, validTime: 24 },
    });

    // The unregistered and illegal pushIds' installations are gone; the switched-off one stays (its user may switch back on).
    const byInstallationId = async (installationId: string) => (await p.h.request('GET', `/1.1/installations?where=${encodeURIComponent(JSON.stringify({ installationId }))}`, { master: true })).body.results;
    await expect.poll(() => byInstallationId(`mz-${channel}-gone`), removal).toEqual([]);
    await expect.poll(() => byInstallationId(`mz-${channel}-bad`), removal).toEqual([]);
    expect(await byInstallationId(`mz-${channel}-off`)).toHaveLength(1);
    expect(await byInstallationId(`mz-${channel}-d0`)).toHaveLength(1);

    expect((await meizuOutcome('delivered')) - before.delivered).toBe(235);
    expect((await meizuOutcome('invalid-token')) - before.invalid).toBe(2);
    expect((await meizuOutcome('failed')) - before.failed).toBe(1);
    expect((await meizuOutcome('not-sent')) - before.notSent).toBe(1);
  });

  it('gives Meizu devices data.android then data.mz, its request fields into messageJson, over the base', async () => {
    const { pushId, channel } = await meizuDevice();
    await p.saveInstallation({ deviceType: 'android', installationId: uniqueName('f'), registrationId: `fcm-${channel}`, vendor: 'fcm', channels: [channel] });
    const res = await p.send({
      channels: [channel],
      expiration_interval: 5400,
      data: {
        alert: 'Body default',
        title: 'Title default',
        android: { title: 'For Android', shared: 1 },
        mz: { title: 'For Meizu', extraKey: 'meizu only', noticeMsgType: 1, clickType: 1, activity: 'com.shop.OrderActivity', notifyKey: 'orders' },
      },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(await p.settled(res.body.objectId)).toMatchObject({ devices: 2, successes: 2 });
    expect(meizuMessageTo(pushId)).toEqual({
      noticeBarInfo: { noticeMsgType: 1, title: 'For Meizu', content: 'Body default' },
      clickTypeInfo: { clickType: 1, activity: 'com.shop.OrderActivity', parameters: { shared: 1, extraKey: 'meizu only' } },
      pushTimeInfo: { offLine: 1, validTime: 2 },
      advanceInfo: { notifyKey: 'orders' },
    });
    const fcm = p.fakes.fcm.deliveriesTo(`fcm-${channel}`)[0]?.message as Json;
    expect(fcm.android.notification.title).toBe('For Android');
    expect(fcm.data.extraKey).toBeUndefined();
  });

  it('refuses data.mz that is not an object, before anything is stored', async () => {
    const before = await p.recordCount();
    const res = await p.send({ channels: [uniqueName('c')], data: { alert: 'A', mz: ['title'] } });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ code: 111, error: 'data.mz must be an object' });
    expect(await p.recordCount()).toBe(before);
  });
});

describe('a silent push', () => {
  it('is not sent to Meizu devices, which cannot pass one through: each counts SilentNotSupported, the others get it', async () => {
    const { pushId, objectId, channel } = await meizuDevice();
    await p.saveInstallation({ deviceType: 'android', installationId: uniqueName('o'), registrationId: `honortoken-${channel}`, vendor: 'honor', channels: [channel] });
    const notSentBefore = await meizuOutcome('not-sent');
    const record = await p.settled((await p.send({ channels: [channel], data: { alert: 'sync', silent: true } })).body.objectId);
    expect(record).toMatchObject({ devices: 2, successes: 1, errors: 1, errorReasons: { SilentNotSupported: 1 } });
    expect(p.fakes.meizu.requestsWith(pushId)).toEqual([]);
    expect(p.fakes.honor.log.countOf(`honortoken-${channel}`)).toBe(1);
    expect((await meizuOutcome('not-sent')) - notSentBefore).toBe(1);
    expect(await installationExists(p, objectId)).toBe(true);
  });
});

describe('Meizu answers', () => {
  it('waits out a rate limit (110010), a 502 and a pushId over the rate (518), then delivers once, within the four sends it may take', async () => {
    const { pushId, channel } = await meizuDevice();
    p.fakes.meizu.respondNext(
      { body: { code: '110010', message: '应用请求频率超过限制', value: '', redirect: '' } },
      { status: 502, body: '<html>Bad Gateway</html>' },
      { body: { code: '200', message: '', value: { '518': [pushId] }, msgId: 'm' } },
    );
    const rateBefore = await counted(p.h, 'herald_push_retries_total', { gateway: 'meizu', reason: 'Meizu110010' });
    const record = await p.settled((await p.send({ channels: [channel], data: { alert: 'A' } })).body.objectId);
    expect(record).toMatchObject({ devices: 1, successes: 1, errors: 0 });
    expect(p.fakes.meizu.requestsWith(pushId).map((request) => request.code)).toEqual(['110010', '', '200', '200']);
    expect(p.fakes.meizu.log.countOf(pushId)).toBe(1);
    expect((await counted(p.h, 'herald_push_retries_total', { gateway: 'meizu', reason: 'Meizu110010' })) - rateBefore).toBe(1);
  });

  it('gives up on a busy server (1003) after the retries and counts the last reason, removing nothing', async () => {
    const { pushId, objectId, channel } = await meizuDevice();
    p.fakes.meizu.respondNext(...Array.from({ length: 4 }, () => ({ body: { code: '1003', message: '服务器忙', value: '' } })));
    const record = await p.settled((await p.send({ channels: [channel], data: { alert: 'A' } })).body.objectId);
    expect(record).toMatchObject({ devices: 1, successes: 0, errors: 1, errorReasons: { Meizu1003: 1 } });
    expect(p.fakes.meizu.requestsWith(pushId)).toHaveLength(4);
    expect(await installationExists(p, objectId)).toBe(true);
  });

  it('counts a folded message (520) failed without sending it again', async () => {
    const { pushId, channel } = await meizuDevice();
    p.fakes.meizu.mark('520', pushId);
    const record = await p.settled((await p.send({ channels: [channel], data: { alert: 'A' } })).body.objectId);
    expect(record).toMatchObject({ devices: 1, errors: 1, errorReasons: { Meizu520: 1 } });
    expect(p.fakes.meizu.requestsWith(pushId)).toHaveLength(1);
  });

  it('sets validTime from the push\'s expiry, in whole hours rounded up', async () => {
    const { pushId, channel } = await meizuDevice();
    await p.settled((await p.send({ channels: [channel], data: { alert: 'A' }, expiration_interval: 600 })).body.objectId);
    expect(meizuMessageTo(pushId).pushTimeInfo).toEqual({ offLine: 1, validTime: 1 });
  });
});

describe('a Meizu app whose quota for the day is spent', () => {
  let q: PushHerald;
  beforeAll(async () => {
    q = await startPushHerald();
  });
  afterAll(async () => {
    await q?.close();
  });

  it('fails DailyQuotaExceeded on 110019 and sends nothing more for that profile until midnight in China', async () => {
    q.fakes.meizu.dailyLimit = 1;
    const first = await meizuDevice(q);
    expect(await q.settled((await q.send({ channels: [first.channel], data: { alert: 'one' } })).body.objectId)).toMatchObject({ successes: 1 });

    const second = await meizuDevice(q);
    const spent = await q.settled((await q.send({ channels: [second.channel], data: { alert: 'two' } })).body.objectId);
    expect(spent).toMatchObject({ devices: 1, errors: 1, errorReasons: { DailyQuotaExceeded: 1 } });
    expect(q.fakes.meizu.requestsWith(second.pushId).map((request) => request.code)).toEqual(['110019']);

    // The same day: not asked again.
    const again = await q.settled((await q.send({ channels: [second.channel], data: { alert: 'three' } })).body.objectId);
    expect(again).toMatchObject({ devices: 1, errors: 1, errorReasons: { DailyQuotaExceeded: 1 } });
    expect(q.fakes.meizu.requestsWith(second.pushId)).toHaveLength(1);
    expect(await installationExists(q, second.objectId)).toBe(true);

    // The next day in China: sent again.
    q.fakes.meizu.dailyLimit = undefined;
    q.clock.advance(dayMs);
    expect(await q.settled((await q.send({ channels: [second.channel], data: { alert: 'four' } })).body.objectId)).toMatchObject({ successes: 1 });
    expect(q.fakes.meizu.log.countOf(second.pushId)).toBe(1);
  });
});

describe('a Meizu profile with a wrong App Secret', () => {
  let w: PushHerald;
  beforeAll(async () => {
    w = await startPushHerald({
      appPush: (fakes) => ({
        ...fakes.appPush,
        meizu: { endpoints: { send: fakes.meizu.sendUrl }, profiles: { _default: { appId: meizuApps._default.appId, appSecretFile: secretFile(fakes.pki, 'meizu-wrong', 'not-the-secret') } } },
      }),
    });
  });
  afterAll(async () => {
    await w?.close();
  });

  it('fails every device Meizu1006 (the signature) and removes none', async () => {
    const { objectId, channel } = await meizuDevice(w);
    const other = await meizuDevice(w, { channels: [channel] });
    const record = await w.settled((await w.send({ channels: [channel], data: { alert: 'A' } })).body.objectId);
    expect(record).toMatchObject({ devices: 2, successes: 0, errors: 2, errorReasons: { Meizu1006: 2 } });
    expect(w.fakes.meizu.requests.length).toBeGreaterThan(0);
    expect(new Set(w.fakes.meizu.requests.map((request) => request.code))).toEqual(new Set(['1006']));
    expect(await installationExists(w, objectId)).toBe(true);
    expect(await installationExists(w, other.objectId)).toBe(true);
  });
});

describe('/1.1/push/devices with a Meizu vendor', () => {
  it('sends to pushIds of vendor mz through the profile named by device_profile', async () => {
    const pushIds = [`mzpushid-${uniqueName('r')}`, `mzpushid-${uniqueName('r')}`];
    const res = await p.sendToDevices({ device_type: 'android', vendor: 'mz', device_profile: 'second', device_ids: pushIds, data: { alert: 'Listed' } });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(await p.settled(res.body.objectId)).toMatchObject({ devices: 2, successes: 2, androidSuccesses: 2 });
    for (const pushId of pushIds) expect(p.fakes.meizu.log.deliveriesTo(pushId).map((delivery) => delivery.request.appId)).toEqual([meizuApps.second.appId]);
  });

  it('takes the meizu and flyme aliases, uses _default without device_profile, and counts a profile the app lacks NoVendorCredentials', async () => {
    for (const vendor of ['meizu', 'flyme']) {
      const pushId = `mzpushid-${uniqueName('r')}`;
      const sent = await p.sendToDevices({ device_type: 'android', vendor, device_ids: [pushId], data: { alert: 'Listed' } });
      expect(await p.settled(sent.body.objectId)).toMatchObject({ successes: 1 });
      expect(p.fakes.meizu.log.deliveriesTo(pushId)[0]?.request.appId).toBe(meizuApps._default.appId);
    }
    const other = `mzpushid-${uniqueName('r')}`;
    const refused = await p.sendToDevices({ device_type: 'android', vendor: 'mz', device_profile: 'unknown', device_ids: [other], data: { alert: 'Listed' } });
    expect(await p.settled(refused.body.objectId)).toMatchObject({ devices: 1, errors: 1, errorReasons: { NoVendorCredentials: 1 } });
    expect(p.fakes.meizu.requestsWith(other)).toEqual([]);
  });

  it('counts a silent push to listed Meizu pushIds SilentNotSupported', async () => {
    const pushId = `mzpushid-${uniqueName('r')}`;
    const res = await p.sendToDevices({ device_type: 'android', vendor: 'mz', device_ids: [pushId], data: { alert: 'sync', silent: true } });
    expect(await p.settled(res.body.objectId)).toMatchObject({ devices: 1, errors: 1, errorReasons: { SilentNotSupported: 1 } });
    expect(p.fakes.meizu.requestsWith(pushId)).toEqual([]);
  });
});

describe('an app without Meizu credentials', () => {
  let bare: PushHerald;
  beforeAll(async () => {
    bare = await startPushHerald({ appPush: (fakes) => ({ apns: fakes.appPush.apns, fcm: fakes.appPush.fcm }) });
  });
  afterAll(async () => {
    await bare?.close();
  });

  it('sends to none of its Meizu devices and counts each NoVendorCredentials', async () => {
    const channel = uniqueName('bare');
    await bare.saveInstallation({ deviceType: 'android', installationId: uniqueName('m'), registrationId: `mzpushid-${channel}`, vendor: 'mz', channels: [channel] });
    await bare.saveInstallation({ deviceType: 'android', installationId: uniqueName('f'), registrationId: `fcm-${channel}`, vendor: 'fcm', channels: [channel] });
    const record = await bare.settled((await bare.send({ channels: [channel], data: { alert: 'A' } })).body.objectId);
    expect(record).toMatchObject({ devices: 2, successes: 1, errors: 1, errorReasons: { NoVendorCredentials: 1 } });
    expect(bare.fakes.meizu.requests).toEqual([]);
  });
});
