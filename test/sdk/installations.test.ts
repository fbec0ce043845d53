import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { memoryLogger } from '../support/memory-logger.ts';
import { idOf, initSdk, type Sdk } from '../support/sdk-client.ts';
import { servedRequests } from '../support/served-requests.ts';
import { startTestHerald, type TestHerald } from '../support/test-herald.ts';

/**
 * Installations as a shipped app saves them with the hosted service's
 * JavaScript SDK: `AV.Installation` (the SDK's class for `_Installation`,
 * which it saves through `/1.1/classes/_Installation`), updated later
 * through `AV.Object.createWithoutData('_Installation', id)` by an app that
 * kept the id. Checked in Herald's store.
 */
let h: TestHerald;
let AV: Sdk;
const log = memoryLogger('debug');

beforeAll(async () => {
  h = await startTestHerald({ logger: log.logger });
  AV = initSdk(h);
});
afterAll(async () => {
  await h?.close();
});

const iosToken = () => randomBytes(32).toString('hex');
const channel = (prefix: string) => `${prefix}${randomBytes(4).toString('hex')}`;

/** The installation as Herald stores it, read with the master key. */
async function stored(objectId: string) {
  const res = await h.request('GET', `/1.1/installations/${objectId}`, { master: true });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body;
}

async function countWhere(where: Record<string, unknown>): Promise<number> {
  const res = await h.request('GET', `/1.1/installations?where=${encodeURIComponent(JSON.stringify(where))}&count=1&limit=0`, { master: true });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body.count as number;
}

describe('saving an installation', () => {
  it('saves an iOS installation with channels through POST /1.1/classes/_Installation', async () => {
    const token = iosToken();
    const news = channel('news');
    const installation = new AV.Installation();
    installation.set({ deviceType: 'ios', deviceToken: token, channels: [news, 'sports'], timeZone: 'Europe/Paris', badge: 0 });
    const before = log.lines.length;
    await installation.save();
    const served = servedRequests(log.lines.slice(before));
    expect(served.map((r) => [r.method, r.path, r.status])).toEqual([['POST', '/1.1/classes/_Installation', 201]]);

    expect(await stored(idOf(installation))).toMatchObject({ deviceType: 'ios', deviceToken: token, channels: [news, 'sports'], timeZone: 'Europe/Paris', badge: 0 });
  });

  it('saves an Android installation with its FCM registration token, also as new AV.Object("_Installation")', async () => {
    const installationId = `android-${randomBytes(8).toString('hex')}`;
    const installation = new AV.Object('_Installation');
    installation.set({ deviceType: 'android', installationId, registrationId: `fcm-${installationId}`, vendor: 'fcm', channels: ['sports'] });
    await installation.save();
    expect(await stored(idOf(installation))).toMatchObject({
      deviceType: 'android',
      installationId,
      registrationId: `fcm-${installationId}`,
      vendor: 'fcm',
      channels: ['sports'],
    });
  });

  it('keeps one installation per device: a save at the next launch with the same token answers the same objectId', async () => {
    const token = iosToken();
    const first = new AV.Installation();
    first.set({ deviceType: 'ios', deviceToken: token, channels: [channel('a')] });
    await first.save();

    const relaunch = new AV.Installation();
    const later = channel('b');
    relaunch.set({ deviceType: 'ios', deviceToken: token, channels: [later] });
    await relaunch.save();
    expect(relaunch.id).toBe(first.id);
    expect(await countWhere({ deviceToken: token })).toBe(1);
    expect((await stored(idOf(first))).channels).toEqual([later]);
  });

  it('subscribes and unsubscribes with addUnique and remove through PUT /1.1/classes/_Installation/<id>', async () => {
    const installation = new AV.Installation();
    installation.set({ deviceType: 'ios', deviceToken: iosToken(), channels: ['keep', 'drop'] });
    await installation.save();

    const kept = AV.Object.createWithoutData('_Installation', idOf(installation));
    kept.addUnique('channels', ['keep', 'new']);
    const before = log.lines.length;
    await kept.save();
    expect(servedRequests(log.lines.slice(before)).map((r) => [r.method, r.path, r.status])).toEqual([
      ['PUT', `/1.1/classes/_Installation/${idOf(installation)}`, 200],
    ]);
    expect((await stored(idOf(installation))).channels).toEqual(['keep', 'drop', 'new']);

    kept.remove('channels', 'drop');
    await kept.save();
    expect((await stored(idOf(installation))).channels).toEqual(['keep', 'new']);
  });

  it('answers a save with fetchWhenSave with the stored installation: the badge as incremented on Herald', async () => {
    const installation = new AV.Installation();
    installation.set({ deviceType: 'ios', deviceToken: iosToken(), badge: 3, channels: ['x'] });
    await installation.save();

    const kept = AV.Object.createWithoutData('_Installation', idOf(installation));
    kept.increment('badge', 1);
    await kept.save(null, { fetchWhenSave: true });
    expect(kept.get('badge')).toBe(4);
    expect(kept.get('channels')).toEqual(['x']);
    expect((await stored(idOf(installation))).badge).toBe(4);
  });

  it('answers a relaunch save with fetchWhenSave with the stored installation, fields it did not send included', async () => {
    const token = iosToken();
    const first = new AV.Installation();
    first.set({ deviceType: 'ios', deviceToken: token, channels: ['kept'], badge: 7 });
    await first.save();

    const relaunch = new AV.Installation();
    relaunch.set({ deviceType: 'ios', deviceToken: token, timeZone: 'Asia/Tokyo' });
    await relaunch.save(null, { fetchWhenSave: true });
    expect(relaunch.id).toBe(first.id);
    expect(relaunch.toJSON()).toMatchObject({ channels: ['kept'], badge: 7, timeZone: 'Asia/Tokyo' });
  });

  it('refuses a conditional save of an installation and writes nothing', async () => {
    const installation = new AV.Installation();
    installation.set({ deviceType: 'ios', deviceToken: iosToken(), badge: 1 });
    await installation.save();
    installation.set('badge', 2);
    await expect(installation.save(null, { query: new AV.Query(AV.Installation).equalTo('badge', 1) })).rejects.toMatchObject({ code: 1 });
    expect((await stored(idOf(installation))).badge).toBe(1);
  });

  it('saves, fetches and (with the master key) deletes several installations at once through /1.1/batch', async () => {
    const tag = channel('batch');
    const devices = [iosToken(), iosToken(), iosToken()].map((token) => {
      const installation = new AV.Installation();
      installation.set({ deviceType: 'ios', deviceToken: token, channels: [tag] });
      return installation;
    });
    const before = log.lines.length;
    await AV.Object.saveAll(devices);
    expect(servedRequests(log.lines.slice(before)).map((r) => [r.method, r.path, r.status])).toEqual([['POST', '/1.1/batch', 200]]);
    expect(devices.every((device) => device.id !== undefined)).toBe(true);
    expect(await countWhere({ channels: tag })).toBe(3);

    const fetched = devices.map((device) => AV.Object.createWithoutData('_Installation', idOf(device)));
    await AV.Object.fetchAll(fetched);
    expect(fetched.map((device) => device.get('channels'))).toEqual([[tag], [tag], [tag]]);

    await AV.Object.destroyAll(devices, { useMasterKey: true });
    expect(await countWhere({ channels: tag })).toBe(0);
  });
});

describe('bad installations', () => {
  it.each([
    ['an invalid channel name', (token: string) => ({ deviceType: 'ios', deviceToken: token, channels: ['no spaces'] }), 112],
    ['an iOS device token that is not hex', (token: string) => ({ deviceType: 'ios', deviceToken: `${token}-x`, tag: token }), 114],
    ['no device key', (token: string) => ({ deviceType: 'ios', tag: token }), 113],
  ])('refuses %s, storing nothing', async (_name, fields, code) => {
    const token = iosToken();
    const installation = new AV.Installation();
    installation.set(fields(token));
    await expect(installation.save()).rejects.toMatchObject({ code });
    expect(await countWhere({ $or: [{ deviceToken: token }, { tag: token }] })).toBe(0);
  });
});

describe('what the app key may not do', () => {
  it('queries installations only with the master key', async () => {
    const tag = channel('q');
    const installation = new AV.Installation();
    installation.set({ deviceType: 'ios', deviceToken: iosToken(), channels: [tag] });
    await installation.save();
    const byChannel = () => new AV.Query(AV.Installation).equalTo('channels', tag);
    await expect(byChannel().find()).rejects.toMatchObject({ code: 403 });
    expect((await byChannel().find({ useMasterKey: true })).map((found) => found.id)).toEqual([installation.id]);
  });

  it('deletes an installation only with the master key', async () => {
    const installation = new AV.Installation();
    installation.set({ deviceType: 'ios', deviceToken: iosToken() });
    await installation.save();
    await expect(installation.destroy()).rejects.toMatchObject({ code: 403 });
    await stored(idOf(installation));
    await installation.destroy({ useMasterKey: true });
    expect((await h.request('GET', `/1.1/installations/${idOf(installation)}`, { master: true })).status).toBe(404);
  });
});
