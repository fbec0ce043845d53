import { status } from '@grpc/grpc-js';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { PushStore } from '../../src/core/ports/push-store.ts';
import { deviceToken } from '../support/gateways/gateway-fixtures.ts';
import { uniqueName, type PushHerald } from '../push/support/push-herald.ts';
import { cancelStream, nextMessage, readStream, type PushClient } from './support/grpc-clients.ts';
import { startGrpcPushHerald, type GrpcPushHerald } from './support/grpc-push-herald.ts';

let p: PushHerald;
let client: PushClient;
let herald: GrpcPushHerald;
beforeAll(async () => {
  herald = await startGrpcPushHerald();
  ({ p, client } = herald);
});
afterAll(() => herald?.close());

const minute = 60_000;
const at = (ms: number) => new Date(ms).toISOString();

/** Counts the record reads per objectId (`pushes.get`), the store calls WatchPush makes. */
function countReads(pushes: PushStore): { of(objectId: string): number; restore(): void } {
  const original = pushes.get.bind(pushes);
  const reads = new Map<string, number>();
  pushes.get = (appId, objectId) => {
    reads.set(objectId, (reads.get(objectId) ?? 0) + 1);
    return original(appId, objectId);
  };
  return { of: (objectId) => reads.get(objectId) ?? 0, restore: () => (pushes.get = original) };
}

it('streams a push from in-queue to done and ends, the last message with exact counters', async () => {
  const channel = uniqueName('watch');
  for (const n of [1, 2, 3]) await p.saveInstallation({ deviceType: 'ios', deviceToken: deviceToken(n), channels: [channel] });
  p.fakes.apns.respondTo(deviceToken(3), [{ status: 400, reason: 'BadDeviceToken' }]);
  // Device 1's first answer stalls until the engine gives up on it (2 s), so the watch sees the push in-queue first.
  p.fakes.apns.respondTo(deviceToken(1), [{ stall: true }]);

  const sent = await client.call('SendPush', { data: JSON.stringify({ alert: 'Watched' }), channels: [channel] });
  const { messages, failure } = await readStream(client.watch(sent.object_id), { timeoutMs: 20_000, what: 'the watch of a push being sent' });

  expect(failure).toBeNull();
  expect(messages[0]).toMatchObject({ object_id: sent.object_id, status: 'in-queue' });
  expect(messages.at(-1)).toEqual({
    object_id: sent.object_id,
    status: 'done',
    devices: 3,
    successes: 2,
    errors: 0,
    invalid_tokens: 1,
    ios_successes: 2,
    android_successes: 0,
    error_reasons: { BadDeviceToken: 1 },
  });
  expect(await p.record(sent.object_id)).toMatchObject({ status: 'done', devices: 3, successes: 2, errors: 0, invalidTokens: 1, iosSuccesses: 2, errorReasons: { BadDeviceToken: 1 } });
  // A message only when something changed.
  for (let n = 1; n < messages.length; n += 1) expect(messages[n]).not.toEqual(messages[n - 1]);
  expect(p.fakes.apns.deliveriesTo(deviceToken(1))).toHaveLength(1);
});

it('answers a finished push with one message and ends', async () => {
  const sent = await client.call('SendToDevices', { device_type: 'ios', device_ids: [deviceToken(10)], data: JSON.stringify({ alert: 'Done already' }) });
  await p.settled(sent.object_id);
  const { messages, failure } = await readStream(client.watch(sent.object_id), { what: 'the watch of a finished push' });
  expect(failure).toBeNull();
  expect(messages).toEqual([expect.objectContaining({ object_id: sent.object_id, status: 'done', devices: 1, successes: 1 })]);
});

it('ends with NOT_FOUND (101) for a push that does not exist', async () => {
  for (const objectId of ['0123456789abcdef01234567', 'not/an id']) {
    const { messages, failure } = await readStream(client.watch(objectId), { what: 'the watch of an unknown push' });
    expect(messages).toEqual([]);
    expect(failure).toMatchObject({ code: status.NOT_FOUND, heraldCode: 101, message: expect.stringMatching(/^No push record with this (id|objectId)\.$/) });
  }
});

it('ends with NOT_FOUND when the watched push is cancelled', async () => {
  const notificationId = uniqueName('wcancel');
  const sent = await client.call('SendPush', {
    data: JSON.stringify({ alert: 'Never' }),
    channels: ['grpc-watch-cancel'],
    push_time: at(p.clock.now() + 5 * minute),
    notification_id: notificationId,
  });
  const stream = client.watch(sent.object_id);
  const ended = readStream(stream, { what: 'the watch of a cancelled push' });
  await nextMessage(stream, (message) => message.status === 'scheduled', { what: 'the scheduled push to be reported' });
  await client.call('DeleteNotification', { notification_id: notificationId });
  const { messages, failure } = await ended;
  expect(messages).toEqual([expect.objectContaining({ object_id: sent.object_id, status: 'scheduled', devices: 0 })]);
  expect(failure).toMatchObject({ code: status.NOT_FOUND, heraldCode: 101 });
});

it('stops reading the record when the client cancels the watch', async () => {
  const reads = countReads(p.h.herald.runtime.store.pushes);
  try {
    const later = () => ({ data: JSON.stringify({ alert: 'Later' }), channels: ['grpc-watch-stop'], push_time: at(p.clock.now() + 5 * minute) });
    const watched = await client.call('SendPush', later());
    const witness = await client.call('SendPush', later());
    const stream = client.watch(watched.object_id);
    await nextMessage(stream, (message) => message.status === 'scheduled', { what: 'the first message' });
    cancelStream(stream);
    const afterCancel = reads.of(watched.object_id);

    // A second watch reads its record at the same pace: after it has read four more times, the first has stopped.
    const witnessStream = client.watch(witness.object_id);
    await expect.poll(() => reads.of(witness.object_id), { timeout: 10_000, message: 'the witness watch to read its record 4 times' }).toBeGreaterThanOrEqual(4);
    cancelStream(witnessStream);
    // At most a read that was already under way when the cancel arrived.
    expect(reads.of(watched.object_id)).toBeLessThanOrEqual(afterCancel + 1);
  } finally {
    reads.restore();
  }
});
