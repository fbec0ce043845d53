import { afterAll, beforeAll, expect, it } from 'vitest';
import type { OutgoingMessage } from '../../../src/core/ports/bus.ts';
import type { PushDoc } from '../../../src/core/ports/push-store.ts';
import type { ScheduledPush } from '../../../src/core/ports/scheduled-push-store.ts';
import { deviceToken } from '../../support/gateways/gateway-fixtures.ts';
import { eventually } from '../../support/eventually.ts';
import { startPushHerald, uniqueName, type PushHerald } from '../support/push-herald.ts';

/**
 * A node that dies after writing a push's record and claiming its req_id,
 * but before publishing it (or adding its scheduled entry), leaves a push
 * nobody would send: the client gets no answer, sends again with the same
 * req_id, and is answered with the first push. The resend now puts that
 * push on its way. Found by the cluster fault test (an API node SIGKILLed
 * with pushes in flight). A node that dies before its record is written has
 * claimed nothing yet (the record comes first), so the resend is sent as a
 * push of its own rather than answered with one that never existed.
 *
 * The death is played by a publish (or an entry write) that never returns
 * while the resend is made; it is let go afterwards without doing anything.
 */
let p: PushHerald;
/** Resolves the held call, as if the dead node's work simply stopped. */
let letGo: (() => void) | undefined;

beforeAll(async () => {
  p = await startPushHerald();
});
afterAll(async () => {
  letGo?.();
  await p?.close();
});

/**
 * Makes the next call of `target.fn` that `matches` hang until `letGo`, doing
 * nothing, and then answer `afterwards`; answers when the call was made.
 */
function holdNext<A extends unknown[], R = void>(target: { fn: (...args: A) => Promise<R> }, matches: (...args: A) => boolean, afterwards?: R): Promise<void> {
  const original = target.fn;
  return new Promise((held) => {
    target.fn = (...args: A) => {
      if (!matches(...args)) return original(...args);
      target.fn = original;
      held();
      return new Promise<R>((resolve) => (letGo = () => resolve(afterwards as R)));
    };
  });
}

it('publishes the first push when a resend of its req_id finds it written but never published', async () => {
  await p.saveInstallation({ deviceType: 'ios', deviceToken: deviceToken(1), channels: ['resumed'] });
  const bus = p.h.herald.runtime.bus;
  const requestsTopic = p.h.herald.runtime.topics.requests;
  const publish = { fn: bus.publish.bind(bus) };
  bus.publish = (topic: string, messages: readonly OutgoingMessage[]) => publish.fn(topic, messages);
  const held = holdNext(publish, (topic) => topic === requestsTopic);

  const body = { channels: ['resumed'], data: { alert: 'Sent once after all' }, req_id: uniqueName('r') };
  const first = p.send(body);
  await held;
  const resend = await p.send(body);
  expect(resend.status, JSON.stringify(resend.body)).toBe(200);

  expect(await p.settled(resend.body.objectId)).toMatchObject({ status: 'done', devices: 1, successes: 1 });
  expect(p.fakes.apns.deliveriesTo(deviceToken(1))).toHaveLength(1);
  letGo?.();
  expect((await first).body).toEqual(resend.body);
});

it('schedules the first push again when a resend of its req_id finds its record but no entry', async () => {
  await p.saveInstallation({ deviceType: 'ios', deviceToken: deviceToken(2), channels: ['resumed-later'] });
  const scheduled = p.h.herald.runtime.store.scheduled;
  const add = { fn: scheduled.add.bind(scheduled) };
  scheduled.add = (entry: ScheduledPush) => add.fn(entry);
  const held = holdNext(add, () => true);

  const pushTime = p.clock.now() + 10 * 60_000;
  const body = { channels: ['resumed-later'], data: { alert: 'Later, once' }, push_time: new Date(pushTime).toISOString(), req_id: uniqueName('r') };
  const first = p.send(body);
  await held;
  const resend = await p.send(body);
  expect(resend.status, JSON.stringify(resend.body)).toBe(200);
  expect(await p.record(resend.body.objectId)).toMatchObject({ status: 'scheduled' });
  letGo?.();
  expect((await first).body).toEqual(resend.body);

  p.clock.advance(10 * 60_000 + 1000);
  expect(await p.settled(resend.body.objectId)).toMatchObject({ status: 'done', devices: 1, successes: 1 });
  await eventually('the scheduled push delivered', () => p.fakes.apns.deliveriesTo(deviceToken(2)).length, (count) => count > 0);
  expect(p.fakes.apns.deliveriesTo(deviceToken(2))).toHaveLength(1);
});

it("sends the push once when the first request's node died before its record was written", async () => {
  await p.saveInstallation({ deviceType: 'ios', deviceToken: deviceToken(4), channels: ['resumed-unwritten'] });
  const pushes = p.h.herald.runtime.store.pushes;
  const insert = { fn: pushes.insert.bind(pushes) };
  pushes.insert = (appId: string, record: PushDoc) => insert.fn(appId, record);
  const held = holdNext(insert, () => true);

  const body = { channels: ['resumed-unwritten'], data: { alert: 'Here after all' }, req_id: uniqueName('r') };
  const first = p.send(body);
  await held;
  // The first request claimed nothing yet: the resend is a push of its own, and the one that goes out.
  const resend = await p.send(body);
  expect(resend.status, JSON.stringify(resend.body)).toBe(201);
  expect(await p.settled(resend.body.objectId)).toMatchObject({ status: 'done', devices: 1, successes: 1 });
  expect(p.fakes.apns.deliveriesTo(deviceToken(4))).toHaveLength(1);
  letGo?.();
  // Let go only to end the test (the node is dead): it now finds the req_id taken and answers the resend's push.
  expect((await first).body).toEqual(resend.body);
  expect(p.fakes.apns.deliveriesTo(deviceToken(4))).toHaveLength(1);
});

it("answers the resend's push alone under its notification_id when the first request's node died before claiming", async () => {
  await p.saveInstallation({ deviceType: 'ios', deviceToken: deviceToken(5), channels: ['resumed-unclaimed'] });
  const coord = p.h.herald.runtime.coord;
  const setIfAbsent = { fn: coord.setIfAbsent.bind(coord) };
  coord.setIfAbsent = (key: string, value: string, ttlMs: number) => setIfAbsent.fn(key, value, ttlMs);
  // Let go at the end, the dead node's claim answers that it lost, as it would by then.
  const held = holdNext(setIfAbsent, (key) => key.includes('push-req-id'), false);

  const notificationId = uniqueName('n');
  const body = { channels: ['resumed-unclaimed'], data: { alert: 'Counted once' }, req_id: uniqueName('r'), notification_id: notificationId };
  const first = p.send(body);
  await Promise.race([held, first.then((res) => Promise.reject(new Error(`answered before its claim: ${res.status} ${JSON.stringify(res.body)}`)))]);
  const resend = await p.send(body);
  expect(resend.status, JSON.stringify(resend.body)).toBe(201);
  expect(await p.settled(resend.body.objectId)).toMatchObject({ status: 'done', devices: 1, successes: 1 });

  // The dead node's record is there, unaccepted, under the same notification_id ...
  const stored = await p.h.herald.runtime.store.pushes.findByNotificationId(p.h.app.id, notificationId);
  expect(stored.map((record) => record._accepted).sort()).toEqual([false, true]);
  // ... and no reader counts it: the notification reads the resend's push alone, done.
  const byNotification = await p.h.request('GET', `/1.1/notifications/${notificationId}`, { master: true });
  expect(byNotification.status, JSON.stringify(byNotification.body)).toBe(200);
  expect(byNotification.body).toMatchObject({ objectId: resend.body.objectId, status: 'done', devices: 1, successes: 1 });
  expect(byNotification.body).not.toHaveProperty('pushes');
  const listed = await p.h.request('GET', `/1.1/notifications?where=${encodeURIComponent(JSON.stringify({ notificationId }))}`, { master: true });
  expect(listed.body.results.map((record: { objectId: string }) => record.objectId)).toEqual([resend.body.objectId]);
  const orphan = stored.find((record) => record._accepted === false)?.objectId as string;
  expect((await p.h.request('GET', `/1.1/tables/Notifications/${orphan}`)).status).toBe(404);

  letGo?.();
  // Let go only to end the test: the dead node's request finds the req_id taken, removes its record, answers the resend's push.
  expect((await first).body).toEqual(resend.body);
  expect(await p.h.herald.runtime.store.pushes.getRecord(p.h.app.id, orphan)).toBeNull();
  expect(p.fakes.apns.deliveriesTo(deviceToken(5))).toHaveLength(1);
});

it('sends nothing again when a resend finds the first push already sent', async () => {
  await p.saveInstallation({ deviceType: 'ios', deviceToken: deviceToken(3), channels: ['resumed-done'] });
  const body = { channels: ['resumed-done'], data: { alert: 'Once' }, req_id: uniqueName('r') };
  const first = await p.send(body);
  expect(first.status).toBe(201);
  await p.settled(first.body.objectId);
  const resend = await p.send(body);
  expect(resend.status).toBe(200);
  expect(resend.body).toEqual(first.body);
  expect(await p.settled(resend.body.objectId)).toMatchObject({ status: 'done', devices: 1, successes: 1 });
  expect(p.fakes.apns.deliveriesTo(deviceToken(3))).toHaveLength(1);
});
