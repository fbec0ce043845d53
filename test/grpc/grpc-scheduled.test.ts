import { status } from '@grpc/grpc-js';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { deviceToken } from '../support/gateways/gateway-fixtures.ts';
import { uniqueName, type PushHerald } from '../push/support/push-herald.ts';
import { watchSchedulerRounds } from '../push/support/scheduler-rounds.ts';
import type { PushClient } from './support/grpc-clients.ts';
import { startGrpcPushHerald, type GrpcPushHerald } from './support/grpc-push-herald.ts';

let p: PushHerald;
let client: PushClient;
let herald: GrpcPushHerald;
let rounds: ReturnType<typeof watchSchedulerRounds>;
beforeAll(async () => {
  herald = await startGrpcPushHerald();
  ({ p, client } = herald);
  rounds = watchSchedulerRounds(p.h.herald.runtime.store.scheduled);
});
afterAll(async () => {
  rounds?.restore();
  await herald?.close();
});

const minute = 60_000;
const at = (ms: number) => new Date(ms).toISOString();

async function scheduled(): Promise<Record<string, unknown>[]> {
  return ((await client.call('ListScheduledPushes', {})).results ?? []) as Record<string, unknown>[];
}

it('lists a later push as REST lists it, with push_msg as JSON text', async () => {
  const pushTime = p.clock.now() + 10 * minute;
  const sent = await client.call('SendPush', { data: JSON.stringify({ alert: 'Later' }), channels: ['grpc-later'], push_time: at(pushTime), notification_id: 'grpclater1' });
  const entry = (await scheduled()).find((item) => item.push_id === sent.object_id);
  expect(entry).toEqual({ id: expect.any(Number), expire_time: pushTime, created_at: sent.created_at, push_msg: expect.any(String), push_id: sent.object_id });

  const rest = await p.h.request('GET', '/1.1/scheduledPushMessages', { master: true });
  const restEntry = (rest.body.results as Record<string, unknown>[]).find((item) => (item.push_msg as Record<string, unknown>).id === sent.object_id);
  expect(restEntry).toEqual({ id: entry?.id, expire_time: pushTime, createdAt: sent.created_at, push_msg: JSON.parse(entry?.push_msg as string) });
  expect(restEntry?.push_msg).toMatchObject({ id: sent.object_id, notificationId: 'grpclater1', 'app-id': p.h.app.id, msg: { alert: 'Later' }, where: { channels: { $in: ['grpc-later'] } } });
});

it('cancels a waiting push: gone from the list, its record gone, nothing delivered; a second cancel is NOT_FOUND', async () => {
  await p.saveInstallation({ deviceType: 'ios', deviceToken: deviceToken(1), channels: ['grpc-cancelled'] });
  const sent = await client.call('SendPush', { data: JSON.stringify({ alert: 'Never' }), channels: ['grpc-cancelled'], push_time: at(p.clock.now() + 3 * minute) });
  const entry = (await scheduled()).find((item) => item.push_id === sent.object_id);
  expect(entry?.id).toEqual(expect.any(Number));

  expect(await client.call('CancelScheduledPush', { id: entry?.id })).toEqual({});
  expect((await scheduled()).map((item) => item.push_id)).not.toContain(sent.object_id);
  expect(await p.record(sent.object_id)).toBeNull();
  expect(await client.failure('GetPush', { object_id: sent.object_id })).toMatchObject({ code: status.NOT_FOUND, heraldCode: 101 });

  p.clock.advance(4 * minute);
  await rounds.completed();
  expect(p.fakes.apns.log.requestsTo(deviceToken(1))).toHaveLength(0);

  expect(await client.failure('CancelScheduledPush', { id: entry?.id })).toEqual({
    code: status.NOT_FOUND,
    message: 'No scheduled push with this id.',
    heraldCode: 101,
    detail: { code: 101, error: 'No scheduled push with this id.', retryable: false },
  });
});

it('answers NOT_FOUND (101) for a scheduled id that never was', async () => {
  for (const id of [12345, 0, -3]) expect(await client.failure('CancelScheduledPush', { id })).toMatchObject({ code: status.NOT_FOUND, heraldCode: 101 });
});

it('deletes by notification_id: a scheduled push is cancelled with its record', async () => {
  const notificationId = uniqueName('grpcdel');
  const sent = await client.call('SendToDevices', {
    device_type: 'ios',
    device_ids: [deviceToken(2)],
    data: JSON.stringify({ alert: 'Never either' }),
    push_time: at(p.clock.now() + 2 * minute),
    notification_id: notificationId,
  });
  expect((await scheduled()).map((item) => item.push_id)).toContain(sent.object_id);
  expect(await client.call('DeleteNotification', { notification_id: notificationId })).toEqual({});
  expect((await scheduled()).map((item) => item.push_id)).not.toContain(sent.object_id);
  expect(await p.record(sent.object_id)).toBeNull();
  expect(await client.failure('DeleteNotification', { notification_id: notificationId })).toMatchObject({ code: status.NOT_FOUND, heraldCode: 101 });

  p.clock.advance(3 * minute);
  await rounds.completed();
  expect(p.fakes.apns.log.requestsTo(deviceToken(2))).toHaveLength(0);
});
