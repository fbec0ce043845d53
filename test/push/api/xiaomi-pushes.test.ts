import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { installationRemoval as removal } from '../support/installation-removal.ts';
import { deviceToken, xiaomiApps } from '../../support/gateways/gateway-fixtures.ts';
import type { XiaomiRequestRecord } from '../../support/gateways/fake-xiaomi.ts';
import { secretFile } from '../../support/push-gateways.ts';
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

/** A Xiaomi installation document for `seed`, with registrationId `mi-<id>` and vendor `mi` as the hosted service's SDK writes it. */
function miInstallation(id: string, savedAt: number, fields: Record<string, unknown> = {}) {
  return androidInstallation(id, savedAt, { installationId: `mi-${id}`, registrationId: `mi-${id}`, vendor: 'mi', ...fields });
}

/** The one request the fake Mi Push accepted for `regId`. */
function miRequestTo(regId: string): XiaomiRequestRecord {
  const deliveries = p.fakes.xiaomi.log.deliveriesTo(regId);
  expect(deliveries, `deliveries to ${regId}`).toHaveLength(1);
  return deliveries[0]?.request as XiaomiRequestRecord;
}

/** Saves a Xiaomi device on a fresh channel and answers its registrationId and objectId. */
async function miDevice(fields: Record<string, unknown> = {}): Promise<{ regId: string; objectId: string; channel: string }> {
  const id = uniqueName('m');
  const channel = uniqueName('c');
  const regId = `mi-${id}`;
  const objectId = await p.saveInstallation({ deviceType: 'android', installationId: id, registrationId: regId, vendor: 'mi', channels: [channel], ...fields });
  return { regId, objectId, channel };
}

async function pushTo(channel: string, data: Record<string, unknown>, extra: Record<string, unknown> = {}) {
  const res = await p.send({ channels: [channel], data, ...extra });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return p.settled(res.body.objectId);
}

const deliveries = (outcome: string) => metricValue(p.h, 'herald_push_deliveries_total', { gateway: 'xiaomi', outcome });

describe('a push to iOS, FCM and Xiaomi devices at once', () => {
  it('reaches each device at its gateway exactly once, batched, mi-intl through the global service, and counts each outcome on the record and in the metrics', async () => {
    // The profile delivers once first, so that Xiaomi's word on a regId is taken as the device's, whichever batch it falls in.
    const warmUp = await miDevice();
    expect(await pushTo(warmUp.channel, { alert: 'first' })).toMatchObject({ successes: 1 });

    const now = p.clock.now();
    const channel = uniqueName('mixed');
    const on = { channels: [channel] };
    const miDefault = Array.from({ length: 60 }, (_, n) => miInstallation(`${channel}-d${n}`, now, on));
    const miSecond = Array.from({ length: 5 }, (_, n) => miInstallation(`${channel}-s${n}`, now, { ...on, deviceProfile: 'second' }));
    const miIntl = Array.from({ length: 5 }, (_, n) => miInstallation(`${channel}-i${n}`, now, { ...on, vendor: 'mi-intl' }));
    const aliased = [miInstallation(`${channel}-alias`, now, { ...on, vendor: 'xiaomi' })];
    const invalid = [miInstallation(`${channel}-gone1`, now, on), miInstallation(`${channel}-gone2`, now, on)];
    const ios = [iosInstallation(9301, now, on), iosInstallation(9302, now, on)];
    const fcm = [androidInstallation(`${channel}-f1`, now, on), androidInstallation(`${channel}-f2`, now, on)];
    const others = [
      miInstallation(`${channel}-noprofile`, now, { ...on, deviceProfile: 'nowhere' }),
      androidInstallation(`${channel}-lc`, now, { ...on, vendor: 'lc' }),
      androidInstallation(`${channel}-odd`, now, { ...on, vendor: 'nokia' }),
    ];
    await p.seed([...miDefault, ...miSecond, ...miIntl, ...aliased, ...invalid, ...ios, ...fcm, ...others]);
    p.fakes.xiaomi.invalidate(...invalid.map((installation) => installation.registrationId as string));
    const requestsBefore = p.fakes.xiaomi.requests.length;
    const before = { delivered: await deliveries('delivered'), invalid: await deliveries('invalid-token'), notSent: await deliveries('not-sent') };

    const record = await pushTo(channel, { alert: 'Mixed', title: 'All of them', ref: 7 });

    expect(record).toMatchObject({
      devices: 80,
      successes: 75,
      iosSuccesses: 2,
      androidSuccesses: 73,
      invalidTokens: 2,
      errors: 3,
      errorReasons: { MiBadRegId: 2, NoVendorCredentials: 1, NoRegistrationId: 1, UnsupportedVendor: 1 },
    });
    for (const installation of [...miDefault, ...miSecond, ...miIntl, ...aliased]) expect(p.fakes.xiaomi.log.countOf(installation.registrationId as string)).toBe(1);
    for (const installation of ios) expect(p.fakes.apns.log.countOf(installation.deviceToken as string)).toBe(1);
    for (const installation of fcm) expect(p.fakes.fcm.log.countOf(installation.registrationId as string)).toBe(1);
    expect(p.fakes.xiaomi.requestsWith(others[0]?.registrationId as string)).toEqual([]);

    // Each profile with its own AppSecret and package; mi-intl through the global service; many regIds a request.
    const requests = p.fakes.xiaomi.requests.slice(requestsBefore);
    const regIdsOf = (secret: string, region: string) =>
      requests.filter((request) => request.headers.authorization === `key=${secret}` && request.region === region).flatMap((request) => request.regIds);
    expect(new Set(regIdsOf(xiaomiApps.second.appSecret, 'china'))).toEqual(new Set(miSecond.map((installation) => installation.registrationId)));
    expect(new Set(regIdsOf(xiaomiApps._default.appSecret, 'global'))).toEqual(new Set(miIntl.map((installation) => installation.registrationId)));
    expect(regIdsOf(xiaomiApps._default.appSecret, 'china')).toHaveLength(63);
    expect(requests.filter((request) => request.headers.authorization === `key=${xiaomiApps.second.appSecret}`).map((request) => request.form.restricted_package_name)).toContain(
      xiaomiApps.second.packageName,
    );
    // How many share a request depends on how the slices' sends meet in one turn (on Kafka, 18 in a run); one a request would be 1.
    expect(Math.max(...requests.map((request) => request.regIds.length))).toBeGreaterThanOrEqual(10);
    expect(requests.length).toBeLessThanOrEqual(16);

    // The message: a notification that opens the app, the data as payload.
    expect(miRequestTo(miDefault[0]?.registrationId as string).form).toMatchObject({
      title: 'All of them',
      description: 'Mixed',
      pass_through: '0',
      restricted_package_name: xiaomiApps._default.packageName,
      'extra.notify_effect': '1',
      payload: JSON.stringify({ alert: 'Mixed', title: 'All of them', ref: 7 }),
    });

    // The invalid regIds' installations are gone, the others stay.
    const found = async (installationId: string) => (await p.h.request('GET', `/1.1/installations?where=${encodeURIComponent(JSON.stringify({ installationId }))}`, { master: true })).body.results;
    await expect.poll(() => found(`mi-${channel}-gone1`), removal).toEqual([]);
    await expect.poll(() => found(`mi-${channel}-gone2`), removal).toEqual([]);
    expect(await found(`mi-${channel}-d0`)).toHaveLength(1);

    expect((await deliveries('delivered')) - before.delivered).toBe(71);
    expect((await deliveries('invalid-token')) - before.invalid).toBe(2);
    expect((await deliveries('not-sent')) - before.notSent).toBe(1);
  });

  it('gives each platform its own content, data.mi taking precedence for Xiaomi devices, its request fields kept out of the payload', async () => {
    const channel = uniqueName('content');
    const ios = deviceToken(9401);
    await p.saveInstallation({ deviceType: 'ios', deviceToken: ios, channels: [channel] });
    await p.saveInstallation({ deviceType: 'android', installationId: uniqueName('f'), registrationId: `fcm-${channel}`, vendor: 'fcm', channels: [channel] });
    await p.saveInstallation({ deviceType: 'android', installationId: uniqueName('m'), registrationId: `mi-${channel}`, vendor: 'mi', channels: [channel] });
    await p.saveInstallation({ deviceType: 'android', installationId: uniqueName('i'), registrationId: `intl-${channel}`, vendor: 'mi-intl', channels: [channel] });
    const record = await pushTo(channel, {
      alert: 'Body default',
      title: 'Title default',
      ios: { alert: { title: 'For iOS', body: 'iOS body' } },
      android: { title: 'For Android', shared: 'every Android' },
      fcm: { extra: 'fcm only' },
      mi: { title: 'For Xiaomi', alert: 'Xiaomi body', notify_id: 12, channel_id: 'im', extra: { notify_foreground: '0' } },
    });
    expect(record).toMatchObject({ devices: 4, successes: 4 });

    const apns = JSON.parse((p.fakes.apns.log.deliveriesTo(ios)[0]?.payload as Buffer).toString()) as Record<string, unknown>;
    expect(apns.mi).toBeUndefined();
    const fcm = p.fakes.fcm.deliveriesTo(`fcm-${channel}`)[0]?.message as { data: Record<string, string> };
    expect(JSON.parse(fcm.data.payload as string)).toEqual({ alert: 'Body default', title: 'For Android', shared: 'every Android', extra: 'fcm only' });

    for (const regId of [`mi-${channel}`, `intl-${channel}`]) {
      const form = miRequestTo(regId).form;
      expect(form).toMatchObject({ title: 'For Xiaomi', description: 'Xiaomi body', notify_id: '12', 'extra.channel_id': 'im', 'extra.notify_foreground': '0' });
      expect(JSON.parse(form.payload as string)).toEqual({ alert: 'Xiaomi body', title: 'For Xiaomi', shared: 'every Android' });
    }
    expect(miRequestTo(`intl-${channel}`).region).toBe('global');
  });

  it('refuses a data.mi that is not an object, and a data.mi alert that is not a string, before anything is stored', async () => {
    const before = await p.recordCount();
    const notObject = await p.send({ channels: [uniqueName('c')], data: { alert: 'A', mi: 'title' } });
    expect(notObject.status).toBe(400);
    expect(notObject.body).toEqual({ code: 111, error: 'data.mi must be an object' });
    const badAlert = await p.send({ channels: [uniqueName('c')], data: { alert: 'A', mi: { alert: 3 } } });
    expect(badAlert.status).toBe(400);
    expect(badAlert.body.code).toBe(111);
    expect(await p.recordCount()).toBe(before);
  });
});

describe('Xiaomi messages', () => {
  it('sends a silent push as a pass-through message, the data alone as payload', async () => {
    const { regId, channel } = await miDevice();
    expect(await pushTo(channel, { alert: 'sync', silent: true, since: 12 })).toMatchObject({ successes: 1, androidSuccesses: 1 });
    const form = miRequestTo(regId).form;
    expect(form.pass_through).toBe('1');
    expect(form.title).toBeUndefined();
    expect(form.description).toBeUndefined();
    expect(JSON.parse(form.payload as string)).toEqual({ alert: 'sync', silent: true, since: 12 });
  });

  it('sets time_to_live from the push\'s expiry and extra.channel_id from _notificationChannel', async () => {
    const { regId, channel } = await miDevice();
    await pushTo(channel, { alert: 'A' }, { expiration_interval: 600, _notificationChannel: 'orders' });
    expect(miRequestTo(regId).form).toMatchObject({ time_to_live: '600000', 'extra.channel_id': 'orders' });
  });
});

describe('Xiaomi answers', () => {
  it('removes the installation Xiaomi refuses (20301) alone in its request, once the profile has delivered', async () => {
    const warmUp = await miDevice();
    await pushTo(warmUp.channel, { alert: 'first' });
    const gone = await miDevice();
    p.fakes.xiaomi.invalidate(gone.regId);
    expect(await pushTo(gone.channel, { alert: 'A' })).toMatchObject({ devices: 1, invalidTokens: 1, errorReasons: { Mi20301: 1 } });
    await expect.poll(() => installationExists(gone.objectId), removal).toBe(false);
  });

  it('waits out a rate limit (10027) and a server error (503), then delivers once', async () => {
    const { regId, channel } = await miDevice();
    p.fakes.xiaomi.throttleNext(1);
    p.fakes.xiaomi.respondNext({ status: 503, body: 'busy' });
    const retries = (reason: string) => counted(p.h, 'herald_push_retries_total', { gateway: 'xiaomi', reason });
    const before = { rate: await retries('Mi10027'), server: await retries('MiServerError') };
    expect(await pushTo(channel, { alert: 'A' })).toMatchObject({ devices: 1, successes: 1, errors: 0 });
    // The scripted answer comes first, then the throttled one.
    expect(p.fakes.xiaomi.requestsWith(regId).map((request) => request.code)).toEqual(['', '10027', '0']);
    expect(p.fakes.xiaomi.log.countOf(regId)).toBe(1);
    expect((await retries('Mi10027')) - before.rate).toBe(1);
    expect((await retries('MiServerError')) - before.server).toBe(1);
  });

  it('never sends a registrationId holding a comma, which would add other devices to the request', async () => {
    const victim = await miDevice();
    const { objectId, channel } = await miDevice({ registrationId: `${victim.regId},mi-someone-else` });
    const record = await pushTo(channel, { alert: 'A' });
    expect(record).toMatchObject({ devices: 1, successes: 0, invalidTokens: 1, errorReasons: { MiBadRegId: 1 } });
    expect(p.fakes.xiaomi.requestsWith(victim.regId)).toEqual([]);
    expect(await installationExists(objectId)).toBe(true);
  });
});

describe('/1.1/push/devices with a vendor', () => {
  it('sends to registrationIds of vendor mi through the profile named by device_profile', async () => {
    const regIds = [`mi-${uniqueName('r')}`, `mi-${uniqueName('r')}`];
    const res = await p.sendToDevices({ device_type: 'android', vendor: 'mi', device_profile: 'second', device_ids: regIds, data: { alert: 'Listed' } });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(await p.settled(res.body.objectId)).toMatchObject({ devices: 2, successes: 2, androidSuccesses: 2 });
    for (const regId of regIds) {
      const request = miRequestTo(regId);
      expect([request.region, request.headers.authorization, request.form.restricted_package_name]).toEqual(['china', `key=${xiaomiApps.second.appSecret}`, xiaomiApps.second.packageName]);
    }
  });

  it.each([
    ['mi-intl', 'global'],
    ['xiaomi', 'china'],
  ])('sends vendor %s through the %s service with the _default profile', async (vendor, region) => {
    const regId = `mi-${uniqueName('r')}`;
    const res = await p.sendToDevices({ device_type: 'android', vendor, device_ids: [regId], data: { alert: 'Listed' } });
    expect(await p.settled(res.body.objectId)).toMatchObject({ devices: 1, successes: 1 });
    const request = miRequestTo(regId);
    expect([request.region, request.headers.authorization]).toEqual([region, `key=${xiaomiApps._default.appSecret}`]);
  });

  it('counts a profile the app lacks NoVendorCredentials', async () => {
    const regId = `mi-${uniqueName('r')}`;
    const res = await p.sendToDevices({ device_type: 'android', vendor: 'mi', device_profile: 'unknown', device_ids: [regId], data: { alert: 'Listed' } });
    expect(await p.settled(res.body.objectId)).toMatchObject({ devices: 1, errors: 1, errorReasons: { NoVendorCredentials: 1 } });
    expect(p.fakes.xiaomi.requestsWith(regId)).toEqual([]);
  });
});

describe('an app whose Xiaomi AppSecret is wrong', () => {
  let wrong: PushHerald;
  beforeAll(async () => {
    wrong = await startPushHerald({
      appPush: (fakes) => ({
        apns: fakes.appPush.apns,
        fcm: fakes.appPush.fcm,
        xiaomi: {
          endpoints: { send: fakes.xiaomi.sendUrl, sendGlobal: fakes.xiaomi.globalSendUrl },
          profiles: { _default: { packageName: xiaomiApps._default.packageName, appSecretFile: secretFile(fakes.pki, 'xiaomi-wrong', 'not-the-secret') } },
        },
      }),
    });
  });
  afterAll(async () => {
    await wrong?.close();
  });

  it('fails every Xiaomi device with Mi21301 and removes none; a profile it lacks counts NoVendorCredentials', async () => {
    const channel = uniqueName('wrong');
    const ids = [uniqueName('m'), uniqueName('m')];
    const objectIds = await Promise.all(ids.map((id) => wrong.saveInstallation({ deviceType: 'android', installationId: id, registrationId: `mi-${id}`, vendor: 'mi', channels: [channel] })));
    await wrong.saveInstallation({ deviceType: 'android', installationId: uniqueName('s'), registrationId: `mi-${channel}-s`, vendor: 'mi', deviceProfile: 'second', channels: [channel] });
    const failed = () => counted(wrong.h, 'herald_push_deliveries_total', { gateway: 'xiaomi', outcome: 'failed' });
    const before = await failed();
    const res = await wrong.send({ channels: [channel], data: { alert: 'A' } });
    const record = await wrong.settled(res.body.objectId);
    expect(record).toMatchObject({ devices: 3, successes: 0, invalidTokens: 0, errors: 3, errorReasons: { Mi21301: 2, NoVendorCredentials: 1 } });
    expect((await failed()) - before).toBe(2);
    for (const objectId of objectIds) expect((await wrong.h.request('GET', `/1.1/installations/${objectId}`, { master: true })).status).toBe(200);
    expect(wrong.fakes.xiaomi.log.countOf(`mi-${ids[0]}`)).toBe(0);
  });
});

// Last: it moves the shared clock to the next day in China.
describe('a daily quota', () => {
  it('fails the profile\'s devices DailyQuotaExceeded without asking Xiaomi again until midnight in China, then sends again', async () => {
    const first = await miDevice({ deviceProfile: 'second' });
    const second = await miDevice({ deviceProfile: 'second' });
    p.fakes.xiaomi.limitDailyQuota(xiaomiApps.second.appSecret, 0);
    expect(await pushTo(first.channel, { alert: 'A' })).toMatchObject({ devices: 1, errors: 1, errorReasons: { DailyQuotaExceeded: 1 } });
    expect(p.fakes.xiaomi.requestsWith(first.regId).map((request) => request.code)).toEqual(['10034']);
    expect(await pushTo(second.channel, { alert: 'B' })).toMatchObject({ devices: 1, errors: 1, errorReasons: { DailyQuotaExceeded: 1 } });
    expect(p.fakes.xiaomi.requestsWith(second.regId)).toEqual([]);

    const hourMs = 3_600_000;
    const chinaNow = p.clock.now() + 8 * hourMs;
    p.clock.advance(24 * hourMs - (chinaNow % (24 * hourMs)) + 1000);
    expect(await pushTo(second.channel, { alert: 'C' })).toMatchObject({ devices: 1, successes: 1 });
    expect(p.fakes.xiaomi.log.countOf(second.regId)).toBe(1);
  });
});
