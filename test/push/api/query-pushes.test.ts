import { afterAll, beforeAll, expect, it } from 'vitest';
import { deviceToken } from '../../support/gateways/gateway-fixtures.ts';
import { testApp } from '../../support/test-herald.ts';
import { startPushHerald, uniqueName, type PushHerald } from '../support/push-herald.ts';

let p: PushHerald;
/** An app of its own for the push without `where`, which reaches every device of its app. */
const wholeApp = testApp();

beforeAll(async () => {
  p = await startPushHerald({ extraApps: (fakes) => [{ ...wholeApp, push: fakes.appPush }] });
});
afterAll(async () => {
  await p?.close();
});

/** Device tokens delivered to, as device numbers among `numbers`. */
function iosReached(numbers: number[]): number[] {
  return numbers.filter((n) => p.fakes.apns.deliveriesTo(deviceToken(n)).length > 0);
}

function androidReached(ids: string[]): string[] {
  return ids.filter((id) => p.fakes.fcm.deliveriesTo(`fcm-${id}`).length > 0);
}

async function saveIos(n: number, fields: Record<string, unknown>): Promise<void> {
  const res = await p.h.request('POST', '/1.1/installations', { master: true, body: { deviceType: 'ios', deviceToken: deviceToken(n), ...fields } });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
}

async function saveAndroid(id: string, fields: Record<string, unknown>): Promise<void> {
  const res = await p.h.request('POST', '/1.1/installations', {
    master: true,
    body: { deviceType: 'android', installationId: `android-${id}`, registrationId: `fcm-${id}`, vendor: 'fcm', ...fields },
  });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
}

it('targets installations by a custom field', async () => {
  const group = uniqueName('g');
  await saveIos(1, { group, tier: 'gold' });
  await saveIos(2, { group, tier: 'silver' });
  await saveAndroid('gold-1', { group, tier: 'gold' });
  const res = await p.send({ where: { group, tier: 'gold' }, data: { alert: 'Gold only' } });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  const record = await p.settled(res.body.objectId);
  expect(record).toMatchObject({ devices: 2, successes: 2, iosSuccesses: 1, androidSuccesses: 1, errors: 0 });
  expect(iosReached([1, 2])).toEqual([1]);
  expect(androidReached(['gold-1'])).toEqual(['gold-1']);
});

it('targets installations by a user pointer', async () => {
  const group = uniqueName('g');
  const owner = (id: string) => ({ __type: 'Pointer', className: '_User', objectId: id });
  await saveIos(10, { group, owner: owner('alice00001') });
  await saveIos(11, { group, owner: owner('bob0000001') });
  await saveIos(12, { group });
  const res = await p.send({ where: { group, owner: owner('alice00001') }, data: { alert: 'For Alice' } });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  expect(await p.settled(res.body.objectId)).toMatchObject({ devices: 1, successes: 1 });
  expect(iosReached([10, 11, 12])).toEqual([10]);
});

it('compares encoded dates', async () => {
  const group = uniqueName('g');
  const date = (iso: string) => ({ __type: 'Date', iso });
  await saveIos(20, { group, lastOrder: date('2026-01-10T00:00:00.000Z') });
  await saveIos(21, { group, lastOrder: date('2026-03-01T00:00:00.000Z') });
  await saveIos(22, { group, lastOrder: date('2026-05-20T12:00:00.000Z') });
  const where = { group, lastOrder: { $gte: date('2026-02-01T00:00:00.000Z'), $lt: date('2026-05-01T00:00:00.000Z') } };
  const res = await p.send({ where: JSON.stringify(where), data: { alert: 'Come back' } });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  expect(await p.settled(res.body.objectId)).toMatchObject({ devices: 1, successes: 1 });
  expect(iosReached([20, 21, 22])).toEqual([21]);
});

it('merges channels into where and keeps the merged condition on the record', async () => {
  const news = uniqueName('news');
  const group = uniqueName('g');
  await saveIos(30, { group, tier: 'gold', channels: [news] });
  await saveIos(31, { group, tier: 'silver', channels: [news] });
  await saveIos(32, { group, tier: 'gold', channels: ['elsewhere'] });
  const res = await p.send({ where: { group, tier: 'gold' }, channels: [news], data: { alert: 'Gold news' } });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  const record = await p.settled(res.body.objectId);
  expect(record).toMatchObject({ devices: 1, successes: 1, where: { group, tier: 'gold', channels: { $in: [news] } } });
  expect(iosReached([30, 31, 32])).toEqual([30]);
});

it('targets one device type', async () => {
  const group = uniqueName('g');
  await saveIos(40, { group });
  await saveAndroid('type-1', { group });
  await saveAndroid('type-2', { group });
  const res = await p.send({ where: { group, deviceType: 'android' }, data: { alert: 'Android only', title: 'T' } });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  expect(await p.settled(res.body.objectId)).toMatchObject({ devices: 2, successes: 2, androidSuccesses: 2, iosSuccesses: 0 });
  expect(iosReached([40])).toEqual([]);
  expect(androidReached(['type-1', 'type-2'])).toEqual(['type-1', 'type-2']);
});

it('reaches every valid installation of the app when there is no where', async () => {
  const save = async (body: Record<string, unknown>) => {
    const res = await p.h.request('POST', '/1.1/installations', { app: wholeApp, body });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
  };
  await save({ deviceType: 'ios', deviceToken: deviceToken(50) });
  await save({ deviceType: 'ios', deviceToken: deviceToken(51), channels: ['a'] });
  await save({ deviceType: 'android', installationId: 'android-all-1', registrationId: 'fcm-all-1', vendor: 'fcm' });
  const res = await p.h.request('POST', '/1.1/push', { app: wholeApp, master: true, body: { data: { alert: 'Everyone' } } });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  await expect
    .poll(async () => (await p.h.request('GET', `/1.1/tables/Notifications/${res.body.objectId}`, { app: wholeApp })).body.status, {
      timeout: 15_000,
      message: 'status of the push record',
    })
    .toBe('done');
  const record = (await p.h.request('GET', `/1.1/tables/Notifications/${res.body.objectId}`, { app: wholeApp })).body;
  expect(record).toMatchObject({ devices: 3, successes: 3, iosSuccesses: 2, androidSuccesses: 1, where: null });
  expect(iosReached([50, 51])).toEqual([50, 51]);
  expect(androidReached(['all-1'])).toEqual(['all-1']);
});

it('sends one string alert to iOS and Android devices in one push', async () => {
  const channel = uniqueName('both');
  await saveIos(60, { channels: [channel] });
  await saveAndroid('both-1', { channels: [channel] });
  const res = await p.send({ channels: [channel], data: { alert: 'To everybody', title: 'Hello' } });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  expect(await p.settled(res.body.objectId)).toMatchObject({ devices: 2, successes: 2, iosSuccesses: 1, androidSuccesses: 1 });
  const [apns] = p.fakes.apns.deliveriesTo(deviceToken(60));
  expect(JSON.parse(String(apns?.payload)).aps.alert).toEqual({ title: 'Hello', body: 'To everybody' });
  const [fcm] = p.fakes.fcm.deliveriesTo('fcm-both-1');
  expect(fcm?.message).toMatchObject({ android: { notification: { title: 'Hello', body: 'To everybody' } } });
});

it('takes an alert object only when every target is iOS', async () => {
  const channel = uniqueName('rich');
  await saveIos(70, { channels: [channel] });
  await saveAndroid('rich-1', { channels: [channel] });
  const alert = { title: 'Sale', subtitle: 'Today', body: 'Everything half price' };

  const mixed = await p.send({ channels: [channel], data: { alert } });
  expect(mixed.status).toBe(400);
  expect(mixed.body.code).toBe(111);

  const res = await p.send({ channels: [channel], where: { deviceType: 'ios' }, data: { alert } });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  expect(await p.settled(res.body.objectId)).toMatchObject({ devices: 1, successes: 1, iosSuccesses: 1 });
  const [apns] = p.fakes.apns.deliveriesTo(deviceToken(70));
  expect(JSON.parse(String(apns?.payload)).aps.alert).toEqual(alert);
  expect(p.fakes.fcm.deliveriesTo('fcm-rich-1')).toEqual([]);
});
