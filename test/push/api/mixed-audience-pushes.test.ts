import { createHash } from 'node:crypto';
import { installationRemoval as removal } from '../support/installation-removal.ts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { StoredObject } from '../../../src/core/ports/object-store.ts';
import { meizuApps } from '../../support/gateways/gateway-fixtures.ts';
import type { PushGatewayFakes } from '../../support/push-gateways.ts';
import type { TestHerald } from '../../support/test-herald.ts';
import { metricValue } from '../support/engine-idle.ts';
import { androidInstallation, iosInstallation, startPushHerald, uniqueName, type PushHerald } from '../support/push-herald.ts';

/*
 * Issue 29's "done means": one push to iOS, FCM and every phone maker's
 * devices, in every vendor spelling the hosted service's SDK writes, reaches
 * each device at its fake exactly once with its maker's message, and counts
 * each outcome on the record and per gateway in the metrics.
 */

let p: PushHerald;
beforeAll(async () => {
  p = await startPushHerald();
});
afterAll(async () => {
  await p?.close();
});

// Messages are untyped JSON on the wire.
type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

type MakerGateway = 'hms' | 'honor' | 'xiaomi' | 'oppo' | 'vivo' | 'meizu';
const makerGateways: readonly MakerGateway[] = ['hms', 'honor', 'xiaomi', 'oppo', 'vivo', 'meizu'];

/** Each maker as the hosted service's SDK names it in `vendor`, and a registrationId of the shape its service issues. */
const makerVendors: Record<MakerGateway, { vendor: string; token: (id: string) => string }> = {
  hms: { vendor: 'HMS', token: (id) => `hmstoken-${id}` },
  honor: { vendor: 'honor', token: (id) => `honortoken-${id}` },
  xiaomi: { vendor: 'mi', token: (id) => `mi-${id}` },
  oppo: { vendor: 'oppo', token: (id) => `CN_${id}` },
  // vivo checks that a regId has 23 characters.
  vivo: { vendor: 'vivo', token: (id) => createHash('sha256').update(id).digest('hex').slice(0, 23) },
  meizu: { vendor: 'mz', token: (id) => `mzpushid-${id}` },
};

/** An installation of `gateway`'s maker for `seed`, with the vendor as the SDK writes it. */
function makerInstallation(gateway: MakerGateway, id: string, savedAt: number, fields: Record<string, unknown> = {}): StoredObject {
  const { vendor, token } = makerVendors[gateway];
  return androidInstallation(id, savedAt, { installationId: `${gateway}-${id}`, registrationId: token(id), vendor, ...fields });
}

/** The registrationIds a maker's fake saw in one request. */
function tokensOfRequests(fakes: PushGatewayFakes, gateway: MakerGateway): string[][] {
  switch (gateway) {
    case 'hms':
      return fakes.hms.requests.map((request) => request.tokens);
    case 'honor':
      return fakes.honor.requests.map((request) => request.tokens);
    case 'xiaomi':
      return fakes.xiaomi.requests.map((request) => request.regIds);
    case 'oppo':
      return fakes.oppo.requests.map((request) => request.tokens);
    case 'vivo':
      return fakes.vivo.requests.map((request) => request.tokens);
    case 'meizu':
      return fakes.meizu.requests.map((request) => request.pushIds);
  }
}

/** Accepted deliveries of `token` at its gateway's fake. */
function deliveredAt(gateway: MakerGateway | 'apns' | 'fcm', token: string): number {
  return p.fakes[gateway].log.countOf(token);
}

/** Requests that named `token` at its maker's fake. */
function requestsNaming(gateway: MakerGateway, token: string): number {
  return tokensOfRequests(p.fakes, gateway).filter((tokens) => tokens.includes(token)).length;
}

/** A counter's value, 0 while it has no such series yet. */
async function counted(h: TestHerald, name: string, labels: Record<string, string>): Promise<number> {
  try {
    return await metricValue(h, name, labels);
  } catch {
    return 0;
  }
}

const outcomes = ['delivered', 'invalid-token', 'failed', 'not-sent'] as const;
type Outcome = (typeof outcomes)[number];
type GatewayCounts = Record<string, Partial<Record<Outcome, number>>>;

/** `herald_push_deliveries_total` of every gateway and outcome. */
async function deliveriesByGateway(): Promise<GatewayCounts> {
  const counts: GatewayCounts = {};
  for (const gateway of ['apns', 'fcm', ...makerGateways]) {
    counts[gateway] = {};
    for (const outcome of outcomes) (counts[gateway] as Record<Outcome, number>)[outcome] = await counted(p.h, 'herald_push_deliveries_total', { gateway, outcome });
  }
  return counts;
}

/** What the counters gained since `before`, leaving out the gateways and outcomes that did not move. */
function gained(before: GatewayCounts, after: GatewayCounts): GatewayCounts {
  const delta: GatewayCounts = {};
  for (const [gateway, byOutcome] of Object.entries(after)) {
    for (const [outcome, value] of Object.entries(byOutcome) as [Outcome, number][]) {
      const moved = value - (before[gateway]?.[outcome] ?? 0);
      if (moved !== 0) delta[gateway] = { ...delta[gateway], [outcome]: moved };
    }
  }
  return delta;
}

async function pushTo(channel: string, data: Record<string, unknown>): Promise<Json> {
  const res = await p.send({ channels: [channel], data });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return p.settled(res.body.objectId);
}

/** The one request of `gateway`'s fake that delivered to `token`. */
function acceptedBy<R>(deliveries: R[], token: string): R {
  expect(deliveries, `deliveries to ${token}`).toHaveLength(1);
  return deliveries[0] as R;
}

const messageOf = {
  apns: (token: string): Json => JSON.parse(acceptedBy(p.fakes.apns.log.deliveriesTo(token), token).payload.toString()) as Json,
  fcm: (token: string): Json => acceptedBy(p.fakes.fcm.deliveriesTo(token), token).message as Json,
  hms: (token: string): Json => acceptedBy(p.fakes.hms.log.deliveriesTo(token), token).request.message as Json,
  honor: (token: string): Json => acceptedBy(p.fakes.honor.log.deliveriesTo(token), token).request.message as Json,
  xiaomi: (token: string): Json => acceptedBy(p.fakes.xiaomi.log.deliveriesTo(token), token).request.form,
  oppo: (token: string): Json => acceptedBy(p.fakes.oppo.log.deliveriesTo(token), token).message,
  vivo: (token: string): Json => acceptedBy(p.fakes.vivo.log.deliveriesTo(token), token).message,
  meizu: (token: string): Json => acceptedBy(p.fakes.meizu.log.deliveriesTo(token), token).request.message as Json,
};

async function installationsWith(installationId: string): Promise<unknown[]> {
  const res = await p.h.request('GET', `/1.1/installations?where=${encodeURIComponent(JSON.stringify({ installationId }))}`, { master: true });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body.results as unknown[];
}

describe('a push to iOS, FCM and every phone maker\'s devices at once', () => {
  it('reaches each device at its gateway exactly once with its maker\'s message, batched, and counts each outcome on the record and per gateway', async () => {
    const now = p.clock.now();
    // Every profile delivers once first, so that a maker's word on one token is taken as that device's, whichever batch it falls in.
    const warmUp = uniqueName('warm');
    const warmDevices = makerGateways.flatMap((gateway) => [
      makerInstallation(gateway, `${warmUp}-${gateway}-d`, now, { channels: [warmUp] }),
      makerInstallation(gateway, `${warmUp}-${gateway}-s`, now, { channels: [warmUp], deviceProfile: 'second' }),
    ]);
    await p.seed(warmDevices);
    expect(await pushTo(warmUp, { alert: 'first' })).toMatchObject({ devices: 12, successes: 12 });

    const channel = uniqueName('mixed');
    const on = { channels: [channel] };
    // _default by an empty deviceProfile as often as by none (the hosted service's rule).
    const defaults = Object.fromEntries(
      makerGateways.map((gateway) => [gateway, Array.from({ length: 25 }, (_, n) => makerInstallation(gateway, `${channel}-${gateway}-d${n}`, now, n % 2 === 0 ? on : { ...on, deviceProfile: '' }))]),
    ) as Record<MakerGateway, StoredObject[]>;
    const seconds = Object.fromEntries(
      makerGateways.map((gateway) => [gateway, Array.from({ length: 4 }, (_, n) => makerInstallation(gateway, `${channel}-${gateway}-s${n}`, now, { ...on, deviceProfile: 'second' }))]),
    ) as Record<MakerGateway, StoredObject[]>;
    const miIntl = Array.from({ length: 4 }, (_, n) => makerInstallation('xiaomi', `${channel}-intl${n}`, now, { ...on, vendor: 'mi-intl' }));
    const invalid = Object.fromEntries(makerGateways.map((gateway) => [gateway, makerInstallation(gateway, `${channel}-${gateway}-gone`, now, on)])) as Record<MakerGateway, StoredObject>;
    const noProfile = makerGateways.map((gateway) => makerInstallation(gateway, `${channel}-${gateway}-nowhere`, now, { ...on, deviceProfile: 'nowhere' }));
    const honorFailing = makerInstallation('honor', `${channel}-honor-busy`, now, on);
    const meizuSwitchedOff = makerInstallation('meizu', `${channel}-meizu-off`, now, on);
    const ios = [iosInstallation(9701, now, on), iosInstallation(9702, now, on), iosInstallation(9703, now, on)];
    const { vendor: _vendor, ...noVendor } = androidInstallation(`${channel}-f0`, now, on);
    const fcm = [noVendor, ...[1, 2, 3].map((n) => androidInstallation(`${channel}-f${n}`, now, on))];
    const lc = androidInstallation(`${channel}-lc`, now, { ...on, vendor: 'lc' });
    const unknown = androidInstallation(`${channel}-odd`, now, { ...on, vendor: 'nokia' });
    await p.seed([
      ...makerGateways.flatMap((gateway) => [...defaults[gateway], ...seconds[gateway], invalid[gateway]]),
      ...miIntl,
      ...noProfile,
      honorFailing,
      meizuSwitchedOff,
      ...ios,
      ...fcm,
      lc,
      unknown,
    ]);
    const tokenOf = (installation: StoredObject) => installation.registrationId as string;
    p.fakes.hms.invalidate(tokenOf(invalid.hms));
    p.fakes.honor.expire(tokenOf(invalid.honor));
    p.fakes.honor.fail(tokenOf(honorFailing));
    p.fakes.xiaomi.invalidate(tokenOf(invalid.xiaomi));
    p.fakes.oppo.invalidate(tokenOf(invalid.oppo));
    p.fakes.vivo.invalidate(2, tokenOf(invalid.vivo));
    p.fakes.meizu.mark('110002', tokenOf(invalid.meizu));
    p.fakes.meizu.mark('110010', tokenOf(meizuSwitchedOff));
    const requestsBefore = Object.fromEntries(makerGateways.map((gateway) => [gateway, tokensOfRequests(p.fakes, gateway).length]));
    const before = await deliveriesByGateway();

    const record = await pushTo(channel, { alert: 'Mixed', title: 'All of them', ref: 7 });

    // Per maker: 25 + 4 delivered, one invalid token, one profile the app lacks; Xiaomi 4 more through its global service; Honor and Meizu one failure each.
    expect(record).toMatchObject({
      devices: 3 + 4 + 6 * 31 + 4 + 2 + 2,
      successes: 3 + 4 + 6 * 29 + 4,
      iosSuccesses: 3,
      androidSuccesses: 4 + 6 * 29 + 4,
      invalidTokens: 6,
      errors: 2 + 6 + 2,
    });
    // HMS and Xiaomi answer a request whose every token is invalid with a code of its own (80300007, 20301): which one
    // a device gets depends on whether its slice had another device of the same profile for the batch (shards are hashed).
    const alone = (gateway: MakerGateway) => {
      const batches = tokensOfRequests(p.fakes, gateway).filter((tokens) => tokens.includes(tokenOf(invalid[gateway])));
      expect(batches, `${gateway} requests naming the invalid token`).toHaveLength(1);
      return batches[0]?.length === 1;
    };
    expect(record.errorReasons).toEqual({
      [alone('hms') ? 'Hms80300007' : 'HmsIllegalToken']: 1,
      HonorExpireToken: 1,
      HonorFailToken: 1,
      [alone('xiaomi') ? 'Mi20301' : 'MiBadRegId']: 1,
      OppoInvalidRegistrationId: 1,
      VivoUninstalled: 1,
      Meizu110002: 1,
      MeizuSwitchedOff: 1,
      NoVendorCredentials: 6,
      NoRegistrationId: 1,
      UnsupportedVendor: 1,
    });
    expect(gained(before, await deliveriesByGateway())).toEqual({
      apns: { delivered: 3 },
      fcm: { delivered: 4, 'not-sent': 2 },
      hms: { delivered: 29, 'invalid-token': 1, 'not-sent': 1 },
      honor: { delivered: 29, 'invalid-token': 1, failed: 1, 'not-sent': 1 },
      xiaomi: { delivered: 33, 'invalid-token': 1, 'not-sent': 1 },
      oppo: { delivered: 29, 'invalid-token': 1, 'not-sent': 1 },
      vivo: { delivered: 29, 'invalid-token': 1, 'not-sent': 1 },
      meizu: { delivered: 29, 'invalid-token': 1, failed: 1, 'not-sent': 1 },
    });

    // Exactly once at its own fake, and nowhere else.
    for (const installation of ios) expect(deliveredAt('apns', installation.deviceToken as string)).toBe(1);
    for (const installation of fcm) expect(deliveredAt('fcm', tokenOf(installation))).toBe(1);
    for (const gateway of makerGateways) {
      for (const installation of [...defaults[gateway], ...seconds[gateway]]) expect(deliveredAt(gateway, tokenOf(installation)), `${gateway} ${tokenOf(installation)}`).toBe(1);
      for (const other of makerGateways.filter((name) => name !== gateway)) expect(deliveredAt(other, tokenOf(defaults[gateway][0] as StoredObject))).toBe(0);
      expect(deliveredAt('fcm', tokenOf(defaults[gateway][0] as StoredObject))).toBe(0);
    }
    for (const installation of miIntl) expect(deliveredAt('xiaomi', tokenOf(installation))).toBe(1);
    for (const [index, gateway] of makerGateways.entries()) expect(requestsNaming(gateway, tokenOf(noProfile[index] as StoredObject))).toBe(0);
    expect(p.fakes.fcm.log.countOf(tokenOf(lc)) + p.fakes.fcm.log.countOf(tokenOf(unknown))).toBe(0);
    // Honor said the token failed, not that it could be retried: asked once.
    expect(requestsNaming('honor', tokenOf(honorFailing))).toBe(1);

    // Batched: many tokens a request, far fewer requests than devices; mi-intl through the global service.
    for (const gateway of makerGateways) {
      const requests = tokensOfRequests(p.fakes, gateway).slice(requestsBefore[gateway]);
      expect(Math.max(...requests.map((tokens) => tokens.length)), gateway).toBeGreaterThanOrEqual(3);
      expect(requests.length, gateway).toBeLessThanOrEqual(16);
    }
    expect(new Set(p.fakes.xiaomi.requests.filter((request) => request.region === 'global').flatMap((request) => request.regIds))).toEqual(new Set(miIntl.map(tokenOf)));
    // Each profile through its own credentials.
    expect(
      new Set(p.fakes.meizu.requests.slice(requestsBefore.meizu).filter((request) => request.appId === meizuApps.second.appId).flatMap((request) => request.pushIds)),
    ).toEqual(new Set(seconds.meizu.map(tokenOf)));

    // Each maker's message: the title and alert where it shows them, the custom keys where its SDK reads them.
    const apns = messageOf.apns(ios[0]?.deviceToken as string);
    expect(apns).toMatchObject({ aps: { alert: { title: 'All of them', body: 'Mixed' } }, ref: 7 });
    const fcmMessage = messageOf.fcm(tokenOf(fcm[0] as StoredObject));
    expect(fcmMessage.android.notification).toEqual({ title: 'All of them', body: 'Mixed' });
    expect(JSON.parse(fcmMessage.data.payload as string)).toEqual({ alert: 'Mixed', title: 'All of them', ref: 7 });
    const hms = messageOf.hms(tokenOf(defaults.hms[0] as StoredObject));
    expect(hms.android.notification).toMatchObject({ title: 'All of them', body: 'Mixed' });
    expect(hms.android.notification.click_action.intent).toContain(`S.content=${encodeURIComponent('{"ref":7}')};`);
    expect(JSON.parse(hms.data as string)).toEqual({ alert: 'Mixed', title: 'All of them', ref: 7 });
    const honor = messageOf.honor(tokenOf(defaults.honor[1] as StoredObject));
    expect(honor.android.notification).toMatchObject({ title: 'All of them', body: 'Mixed', clickAction: { type: 1 } });
    expect(JSON.parse(honor.data as string)).toEqual({ alert: 'Mixed', title: 'All of them', ref: 7 });
    for (const token of [tokenOf(defaults.xiaomi[0] as StoredObject), tokenOf(miIntl[0] as StoredObject)]) {
      expect(messageOf.xiaomi(token)).toMatchObject({ title: 'All of them', description: 'Mixed', pass_through: '0', payload: JSON.stringify({ alert: 'Mixed', title: 'All of them', ref: 7 }) });
    }
    expect(messageOf.oppo(tokenOf(defaults.oppo[0] as StoredObject)).notification).toMatchObject({ title: 'All of them', content: 'Mixed', action_parameters: '{"ref":"7"}' });
    expect(messageOf.vivo(tokenOf(defaults.vivo[1] as StoredObject))).toMatchObject({ title: 'All of them', content: 'Mixed', clientCustomMap: { ref: '7' } });
    expect(messageOf.meizu(tokenOf(defaults.meizu[0] as StoredObject))).toMatchObject({
      noticeBarInfo: { title: 'All of them', content: 'Mixed' },
      clickTypeInfo: { parameters: { ref: 7 } },
    });

    // The invalid tokens' installations are gone; the failing and switched-off ones and the others stay.
    for (const gateway of makerGateways) {
      await expect.poll(() => installationsWith(`${gateway}-${channel}-${gateway}-gone`), { ...removal, message: gateway }).toEqual([]);
      expect(await installationsWith(`${gateway}-${channel}-${gateway}-d0`), gateway).toHaveLength(1);
    }
    expect(await installationsWith(honorFailing.installationId as string)).toHaveLength(1);
    expect(await installationsWith(meizuSwitchedOff.installationId as string)).toHaveLength(1);
  });
});

describe('a silent push to every gateway', () => {
  it('reaches iOS, FCM, Huawei, Honor and Xiaomi devices as a data message, and records SilentNotSupported for OPPO, vivo and Meizu without sending', async () => {
    const now = p.clock.now();
    const channel = uniqueName('silent');
    const on = { channels: [channel] };
    const makers = Object.fromEntries(makerGateways.map((gateway) => [gateway, makerInstallation(gateway, `${channel}-${gateway}`, now, on)])) as Record<MakerGateway, StoredObject>;
    const intl = makerInstallation('xiaomi', `${channel}-intl`, now, { ...on, vendor: 'mi-intl' });
    const ios = iosInstallation(9801, now, on);
    const fcm = androidInstallation(`${channel}-f`, now, on);
    await p.seed([...Object.values(makers), intl, ios, fcm]);
    const before = await deliveriesByGateway();

    // silent is an Android key; iOS has its own, content-available, through data.ios.
    const record = await pushTo(channel, { alert: 'sync', silent: true, since: 12, ios: { 'content-available': 1 } });

    expect(record).toMatchObject({ devices: 9, successes: 6, iosSuccesses: 1, androidSuccesses: 5, invalidTokens: 0, errors: 3 });
    expect(record.errorReasons).toEqual({ SilentNotSupported: 3 });
    expect(gained(before, await deliveriesByGateway())).toEqual({
      apns: { delivered: 1 },
      fcm: { delivered: 1 },
      hms: { delivered: 1 },
      honor: { delivered: 1 },
      xiaomi: { delivered: 2 },
      oppo: { 'not-sent': 1 },
      vivo: { 'not-sent': 1 },
      meizu: { 'not-sent': 1 },
    });
    const tokenOf = (installation: StoredObject) => installation.registrationId as string;
    for (const gateway of ['oppo', 'vivo', 'meizu'] as const) expect(requestsNaming(gateway, tokenOf(makers[gateway]))).toBe(0);

    expect(messageOf.apns(ios.deviceToken as string)).toMatchObject({ aps: { 'content-available': 1 }, since: 12 });
    const fcmMessage = messageOf.fcm(tokenOf(fcm));
    expect(fcmMessage.android.notification).toBeUndefined();
    expect(fcmMessage.data).toMatchObject({ alert: 'sync', since: '12' });
    for (const gateway of ['hms', 'honor'] as const) {
      const message = messageOf[gateway](tokenOf(makers[gateway]));
      expect(message.android?.notification, gateway).toBeUndefined();
      expect(JSON.parse(message.data as string), gateway).toEqual({ alert: 'sync', silent: true, since: 12 });
    }
    for (const installation of [makers.xiaomi, intl]) {
      const form = messageOf.xiaomi(tokenOf(installation));
      expect(form.pass_through).toBe('1');
      expect(form.title).toBeUndefined();
      expect(JSON.parse(form.payload as string)).toEqual({ alert: 'sync', silent: true, since: 12 });
    }
  });
});

describe('per-platform content in data', () => {
  it('gives each platform its own key over data, data.android under every Android maker\'s own, each taking precedence only for its platform', async () => {
    const now = p.clock.now();
    const channel = uniqueName('content');
    const on = { channels: [channel] };
    const makers = Object.fromEntries(makerGateways.map((gateway) => [gateway, makerInstallation(gateway, `${channel}-${gateway}`, now, on)])) as Record<MakerGateway, StoredObject>;
    const intl = makerInstallation('xiaomi', `${channel}-intl`, now, { ...on, vendor: 'mi-intl' });
    const ios = iosInstallation(9901, now, on);
    const fcm = androidInstallation(`${channel}-f`, now, on);
    await p.seed([...Object.values(makers), intl, ios, fcm]);

    const record = await pushTo(channel, {
      alert: 'Body default',
      title: 'Title default',
      ref: 1,
      ios: { alert: { title: 'For iOS', body: 'iOS body' }, iosOnly: true },
      android: { alert: 'Android body', title: 'For Android', shared: 'android' },
      fcm: { title: 'For FCM', fcmOnly: 'fcm' },
      hms: { title: 'For HMS', hmsOnly: 'hms' },
      honor: { title: 'For Honor', honorOnly: 'honor' },
      mi: { title: 'For Xiaomi', miOnly: 'mi' },
      oppo: { title: 'For OPPO', oppoOnly: 'oppo' },
      vivo: { title: 'For vivo', vivoOnly: 'vivo' },
      mz: { title: 'For Meizu', mzOnly: 'mz' },
    });
    expect(record).toMatchObject({ devices: 9, successes: 9, errors: 0 });
    const tokenOf = (installation: StoredObject) => installation.registrationId as string;
    // Every Android device: data without the platform keys, then data.android, then its own key.
    const android = (own: Record<string, unknown>) => ({ alert: 'Android body', ref: 1, shared: 'android', ...own });
    const asStrings = (values: Record<string, unknown>) => Object.fromEntries(Object.entries(values).map(([key, value]) => [key, String(value)]));

    const apns = messageOf.apns(ios.deviceToken as string);
    expect(apns.aps.alert).toEqual({ title: 'For iOS', body: 'iOS body' });
    expect(apns).toMatchObject({ ref: 1, iosOnly: true });
    for (const key of ['ios', 'android', 'fcm', 'hms', 'honor', 'mi', 'oppo', 'vivo', 'mz', 'shared']) expect(apns[key], key).toBeUndefined();

    const fcmMessage = messageOf.fcm(tokenOf(fcm));
    expect(fcmMessage.android.notification).toEqual({ title: 'For FCM', body: 'Android body' });
    expect(JSON.parse(fcmMessage.data.payload as string)).toEqual(android({ title: 'For FCM', fcmOnly: 'fcm' }));

    const hms = messageOf.hms(tokenOf(makers.hms));
    expect(hms.android.notification).toMatchObject({ title: 'For HMS', body: 'Android body' });
    expect(JSON.parse(hms.data as string)).toEqual(android({ title: 'For HMS', hmsOnly: 'hms' }));
    const honor = messageOf.honor(tokenOf(makers.honor));
    expect(honor.android.notification).toMatchObject({ title: 'For Honor', body: 'Android body' });
    expect(JSON.parse(honor.data as string)).toEqual(android({ title: 'For Honor', honorOnly: 'honor' }));
    for (const installation of [makers.xiaomi, intl]) {
      const form = messageOf.xiaomi(tokenOf(installation));
      expect(form).toMatchObject({ title: 'For Xiaomi', description: 'Android body' });
      expect(JSON.parse(form.payload as string)).toEqual(android({ title: 'For Xiaomi', miOnly: 'mi' }));
    }
    const oppo = messageOf.oppo(tokenOf(makers.oppo)).notification as Json;
    expect(oppo).toMatchObject({ title: 'For OPPO', content: 'Android body' });
    expect(JSON.parse(oppo.action_parameters as string)).toEqual(asStrings({ ref: 1, shared: 'android', oppoOnly: 'oppo' }));
    expect(messageOf.vivo(tokenOf(makers.vivo))).toMatchObject({ title: 'For vivo', content: 'Android body', clientCustomMap: asStrings({ ref: 1, shared: 'android', vivoOnly: 'vivo' }) });
    const meizu = messageOf.meizu(tokenOf(makers.meizu));
    expect(meizu.noticeBarInfo).toMatchObject({ title: 'For Meizu', content: 'Android body' });
    expect(meizu.clickTypeInfo.parameters).toEqual({ ref: 1, shared: 'android', mzOnly: 'mz' });
  });
});
