import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startPushHerald, type PushHerald } from '../push/support/push-herald.ts';
import { idOf, initSdk, type Sdk } from '../support/sdk-client.ts';

/**
 * `AV.Push.send` of the hosted service's JavaScript SDK, with the master key
 * as an app's server holds it, to installations the SDK saved: checked where
 * the pushes land, at the fake APNs and FCM gateways, and in Herald's push
 * records.
 */
let p: PushHerald;
let AV: Sdk;

beforeAll(async () => {
  p = await startPushHerald();
  AV = initSdk(p.h);
});
afterAll(async () => {
  await p?.close();
});

const name = (prefix: string) => `${prefix}${randomBytes(4).toString('hex')}`;
const master = { useMasterKey: true };

/** Saves an iOS installation through the SDK; answers its device token. */
async function iosDevice(fields: Record<string, unknown> = {}): Promise<string> {
  const token = randomBytes(32).toString('hex');
  const installation = new AV.Installation();
  installation.set({ deviceType: 'ios', deviceToken: token, ...fields });
  await installation.save();
  return token;
}

/** Saves an Android installation through the SDK; answers its FCM registration token. */
async function androidDevice(fields: Record<string, unknown> = {}): Promise<string> {
  const id = randomBytes(8).toString('hex');
  const installation = new AV.Installation();
  installation.set({ deviceType: 'android', installationId: `android-${id}`, registrationId: `fcm-${id}`, vendor: 'fcm', ...fields });
  await installation.save();
  return `fcm-${id}`;
}

/** The APNs payloads a device token received, parsed. */
function apnsPayloads(token: string): Record<string, unknown>[] {
  return p.fakes.apns.deliveriesTo(token).map((delivery) => JSON.parse(delivery.payload.toString('utf8')) as Record<string, unknown>);
}

interface PushAnswer {
  objectId: string;
  createdAt: string;
}

describe('AV.Push.send', () => {
  it('by channel reaches the iOS and Android devices of the channel and no other, signed with the master key', async () => {
    const news = name('news');
    const iphone = await iosDevice({ channels: [news, 'other'] });
    const android = await androidDevice({ channels: [news] });
    const elsewhere = await iosDevice({ channels: ['other'] });

    const answer = await AV.Push.send<PushAnswer>({ channels: [news], data: { alert: 'Read all about it', badge: 'Increment', kind: 'news' } }, master);

    const record = await p.settled(answer.objectId);
    expect(record).toMatchObject({ status: 'done', devices: 2, successes: 2, iosSuccesses: 1, androidSuccesses: 1, where: { channels: { $in: [news] } } });
    expect(apnsPayloads(iphone)).toEqual([expect.objectContaining({ aps: expect.objectContaining({ alert: 'Read all about it', badge: 1 }), kind: 'news' })]);
    const [fcm] = p.fakes.fcm.deliveriesTo(android);
    expect(JSON.stringify(fcm?.message)).toContain('Read all about it');
    expect(apnsPayloads(elsewhere)).toEqual([]);
  });

  it('by query reaches the devices an AV.Query over AV.Installation matches: a custom field and the owner saved as a user pointer', async () => {
    const group = name('g');
    const owner = new AV.User();
    owner.setUsername(name('owner'));
    owner.setPassword('owner-pass-1');
    await owner.signUp();
    const owned = await iosDevice({ group, owner: AV.User.current(), tier: 'gold' });
    const ownedSilver = await iosDevice({ group, owner: AV.User.current(), tier: 'silver' });
    await AV.User.logOut();
    const stranger = await iosDevice({ group, tier: 'gold' });

    const where = new AV.Query(AV.Installation).equalTo('group', group).equalTo('owner', owner).equalTo('tier', 'gold');
    const answer = await AV.Push.send<PushAnswer>({ where, data: { alert: 'Your gold order shipped' } }, master);
    const record = await p.settled(answer.objectId);
    expect(record).toMatchObject({
      status: 'done',
      devices: 1,
      successes: 1,
      where: { group, owner: { __type: 'Pointer', className: '_User', objectId: idOf(owner) }, tier: 'gold' },
    });
    expect(apnsPayloads(owned)).toHaveLength(1);
    expect(apnsPayloads(ownedSilver)).toEqual([]);
    expect(apnsPayloads(stranger)).toEqual([]);
  });

  it('by query with encoded dates and containedIn', async () => {
    const group = name('g');
    const recent = await iosDevice({ group, lastOrder: new Date('2026-03-01T00:00:00Z'), tier: 'gold' });
    const old = await iosDevice({ group, lastOrder: new Date('2025-01-01T00:00:00Z'), tier: 'gold' });
    const otherTier = await iosDevice({ group, lastOrder: new Date('2026-03-01T00:00:00Z'), tier: 'tin' });
    const where = new AV.Query(AV.Installation)
      .equalTo('group', group)
      .greaterThan('lastOrder', new Date('2026-01-01T00:00:00Z'))
      .containedIn('tier', ['gold', 'silver']);
    const answer = await AV.Push.send<PushAnswer>({ where, data: { alert: 'Come back' } }, master);
    expect(await p.settled(answer.objectId)).toMatchObject({ status: 'done', devices: 1, successes: 1 });
    expect([recent, old, otherTier].map((token) => apnsPayloads(token).length)).toEqual([1, 0, 0]);
  });

  it('sends X-LC-Prod as AV.setProduction says, which Herald reads as the APNs environment (0: development, 1: production)', async () => {
    const channel = name('env');
    await iosDevice({ channels: [channel] });
    AV.setProduction(false);
    try {
      const answer = await AV.Push.send<PushAnswer>({ channels: [channel], data: { alert: 'To the sandbox' } }, master);
      expect(await p.settled(answer.objectId)).toMatchObject({ status: 'done', prod: 'dev', successes: 1 });
    } finally {
      AV.setProduction(true);
    }
    const answer = await AV.Push.send<PushAnswer>({ channels: [channel], data: { alert: 'To production' } }, master);
    expect(await p.settled(answer.objectId)).toMatchObject({ status: 'done', prod: 'prod', successes: 1 });
  });

  it('without the master key is refused (119), as the app does not let clients push, and nothing is sent', async () => {
    const channel = name('client');
    const token = await iosDevice({ channels: [channel] });
    const records = await p.recordCount();
    await expect(AV.Push.send({ channels: [channel], data: { alert: 'From a client' } })).rejects.toMatchObject({ code: 119 });
    expect(await p.recordCount()).toBe(records);
    expect(apnsPayloads(token)).toEqual([]);
  });

  it('with cql (a query language Herald does not speak) is refused, instead of reaching every device', async () => {
    const token = await iosDevice({ channels: [name('cql')] });
    const records = await p.recordCount();
    await expect(AV.Push.send({ cql: "select * from _Installation where deviceType = 'android'", data: { alert: 'Android only' } }, master)).rejects.toMatchObject({
      code: 1,
      message: expect.stringContaining('cql is not supported'),
    });
    expect(await p.recordCount()).toBe(records);
    expect(apnsPayloads(token)).toEqual([]);
  });

  it('with push_time schedules the push; it is delivered once Herald\'s clock passes that time', async () => {
    const channel = name('later');
    const token = await iosDevice({ channels: [channel] });
    // Two minutes ahead on Herald's clock, which stays within the SDK's signature window once moved.
    const pushTime = new Date(p.clock.now() + 2 * 60_000);
    const answer = await AV.Push.send<PushAnswer>({ channels: [channel], push_time: pushTime, expiration_interval: 3600, data: { alert: 'Later' } }, master);
    expect(await p.record(answer.objectId)).toMatchObject({ status: 'scheduled', push_time: pushTime.toISOString() });
    expect(apnsPayloads(token)).toEqual([]);

    p.clock.advance(2 * 60_000 + 1_000);
    expect(await p.settled(answer.objectId)).toMatchObject({ status: 'done', successes: 1 });
    const [delivery] = p.fakes.apns.deliveriesTo(token);
    expect(delivery?.headers['apns-expiration']).toBe(String(Math.floor(pushTime.getTime() / 1000) + 3600));
  });
});
