import { afterAll, beforeAll, expect, it } from 'vitest';
import { startPushHerald, uniqueName, type PushHerald } from '../support/push-herald.ts';

let p: PushHerald;
beforeAll(async () => {
  p = await startPushHerald();
});
afterAll(async () => {
  await p?.close();
});

// The parsed FCM message is untyped JSON.
type Message = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

/** Saves an Android device and answers the FCM message one device push to it produced. */
async function messageFor(body: Record<string, unknown>, options: { viaChannelPush?: boolean } = {}): Promise<Message> {
  const id = uniqueName('d');
  const channel = uniqueName('c');
  await p.saveInstallation({ deviceType: 'android', installationId: id, registrationId: `fcm-${id}`, vendor: 'fcm', channels: [channel] });
  const res = options.viaChannelPush === true ? await p.send({ channels: [channel], ...body }) : await p.sendToDevices({ device_type: 'android', device_ids: [id], ...body });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  expect(await p.settled(res.body.objectId)).toMatchObject({ successes: 1, androidSuccesses: 1 });
  const deliveries = p.fakes.fcm.deliveriesTo(`fcm-${id}`);
  expect(deliveries).toHaveLength(1);
  return deliveries[0]?.message as Message;
}

it('sends a notification with title and body at high priority, and the whole data as payload', async () => {
  const data = { alert: 'Your order shipped', title: 'Shop' };
  const message = await messageFor({ data });
  expect(message.android).toEqual({ priority: 'high', notification: { title: 'Shop', body: 'Your order shipped' } });
  expect(message.data).toEqual({ payload: JSON.stringify(data) });
});

it('sends a silent push as a data message at normal priority, alert and title in data', async () => {
  const message = await messageFor({ data: { alert: 'sync', title: 'bg', silent: true } });
  expect(message.android.notification).toBeUndefined();
  expect(message.android.priority).toBe('normal');
  expect(message.data).toMatchObject({ alert: 'sync', title: 'bg' });
  expect(message.data.silent).toBeUndefined();
});

it('carries action in data, not as click_action', async () => {
  const message = await messageFor({ data: { alert: 'Open', action: 'com.example.OPEN' } });
  expect(message.data.action).toBe('com.example.OPEN');
  expect(message.android.notification.click_action).toBeUndefined();
});

it('turns custom keys into strings', async () => {
  const message = await messageFor({ data: { alert: 'A', count: 3, flag: true, nested: { a: [1, 2] }, plain: 'text', nothing: null } });
  expect(message.data).toMatchObject({ count: '3', flag: 'true', nested: '{"a":[1,2]}', plain: 'text', nothing: 'null' });
  for (const value of Object.values(message.data as Record<string, unknown>)) expect(typeof value).toBe('string');
});

it('sets the notification channel from _notificationChannel on /push', async () => {
  const message = await messageFor({ data: { alert: 'A' }, _notificationChannel: 'orders' }, { viaChannelPush: true });
  expect(message.android.notification.channel_id).toBe('orders');
});

it('sets the notification channel from channel on /push/devices', async () => {
  const message = await messageFor({ data: { alert: 'A' }, channel: 'promotions' });
  expect(message.android.notification.channel_id).toBe('promotions');
});

it('sets ttl to the seconds left before expiration_time', async () => {
  const message = await messageFor({ data: { alert: 'A' }, expiration_time: new Date(p.clock.now() + 7_200_000).toISOString() });
  expect(message.android.ttl).toBe('7200s');
});

it('sets ttl from expiration_interval', async () => {
  const message = await messageFor({ data: { alert: 'A' }, expiration_interval: 90 });
  expect(message.android.ttl).toBe('90s');
});

it('sends no ttl without an expiry', async () => {
  const message = await messageFor({ data: { alert: 'A' } });
  expect(message.android.ttl).toBeUndefined();
});
