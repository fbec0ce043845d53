import { status } from '@grpc/grpc-js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { deviceToken } from '../support/gateways/gateway-fixtures.ts';
import { type PushHerald } from '../push/support/push-herald.ts';
import { masterMetadata, type PushClient } from './support/grpc-clients.ts';
import { startGrpcPushHerald, type GrpcPushHerald } from './support/grpc-push-herald.ts';

let p: PushHerald;
let client: PushClient;
let herald: GrpcPushHerald;
beforeAll(async () => {
  herald = await startGrpcPushHerald();
  ({ p, client } = herald);
});
afterAll(() => herald?.close());

/** A REST body as the gRPC request standing for it: `data` as JSON text, and `where` too unless it already is text (REST takes both). */
function asMessage(body: Record<string, unknown>): Record<string, unknown> {
  const message = { ...body };
  if ('data' in message) message.data = JSON.stringify(message.data);
  if ('where' in message && typeof message.where !== 'string') message.where = JSON.stringify(message.where);
  if ('_notificationChannel' in message) {
    message.notification_channel = message._notificationChannel;
    delete message._notificationChannel;
  }
  return message;
}

const alert = { alert: 'Hi' };
const longAlert = 'x'.repeat(4200);

describe('bad input is refused as REST refuses it: INVALID_ARGUMENT with the same code and message, nothing stored', () => {
  const cases: { name: string; path: '/1.1/push' | '/1.1/push/devices'; body: Record<string, unknown>; grpcStatus?: status }[] = [
    { name: 'no data', path: '/1.1/push', body: { channels: ['a'] } },
    { name: 'data that is not an object', path: '/1.1/push', body: { data: 'text' } },
    { name: 'an iOS alert of the wrong type', path: '/1.1/push/devices', body: { device_type: 'ios', device_ids: [deviceToken(1)], data: { alert: 5 } } },
    { name: 'a bad channel name', path: '/1.1/push', body: { data: alert, channels: ['no spaces'] } },
    { name: 'a where that is not an object', path: '/1.1/push', body: { data: alert, where: '[1, 2]' } },
    { name: 'a notification_id too long', path: '/1.1/push', body: { data: alert, notification_id: 'a'.repeat(17) } },
    { name: 'a push_time without a time zone', path: '/1.1/push', body: { data: alert, push_time: '2030-01-01T10:00:00' } },
    { name: 'a negative expiration_interval', path: '/1.1/push', body: { data: alert, expiration_interval: -5 } },
    { name: 'a negative flow_control', path: '/1.1/push', body: { data: alert, flow_control: -1 } },
    { name: 'a prod that is neither dev nor prod', path: '/1.1/push', body: { data: alert, prod: 'staging' } },
    { name: 'no device_type', path: '/1.1/push/devices', body: { device_ids: [deviceToken(1)], data: alert } },
    { name: 'an unknown device_type', path: '/1.1/push/devices', body: { device_type: 'windows', device_ids: ['x'], data: alert } },
    { name: 'a malformed iOS token', path: '/1.1/push/devices', body: { device_type: 'ios', device_ids: ['not-hex'], data: alert } },
    { name: 'more than 500 devices', path: '/1.1/push/devices', body: { device_type: 'android', device_ids: Array.from({ length: 501 }, (_, n) => `i${n}`), data: alert } },
    { name: 'a body over 4096 bytes', path: '/1.1/push', body: { data: { alert: longAlert } } },
  ];

  it.each(cases)('$name', async ({ path, body }) => {
    const records = await p.recordCount();
    const rest = await p.h.request('POST', path, { master: true, body });
    expect(rest.status, JSON.stringify(rest.body)).toBeGreaterThanOrEqual(400);
    expect(rest.status).toBeLessThan(500);

    const failure = await client.failure(path === '/1.1/push' ? 'SendPush' : 'SendToDevices', asMessage(body));
    expect(failure).toEqual({
      code: status.INVALID_ARGUMENT,
      message: rest.body.error,
      heraldCode: rest.body.code,
      detail: { code: rest.body.code, error: rest.body.error, retryable: false },
    });
    expect(await p.recordCount()).toBe(records);
  });

  it('refuses data that is not JSON text with 107', async () => {
    expect(await client.failure('SendPush', { data: '{alert: nope' })).toMatchObject({ code: status.INVALID_ARGUMENT, heraldCode: 107, message: 'data must be JSON text of an object.' });
  });
});

describe('the master key in metadata', () => {
  const unknownPush = { object_id: '0123456789abcdef01234567' };

  it('is required: none, a wrong one or an unknown app is UNAUTHENTICATED (401)', async () => {
    const app = p.h.app;
    const attempts: Record<string, string>[] = [
      {},
      { 'x-svc-id': app.id },
      { 'x-svc-id': app.id, 'x-svc-key': 'wrong-key-123,master' },
      { 'x-svc-id': 'no-such-app', 'x-svc-key': `${app.masterKey},master` },
      { 'x-svc-key': `${app.masterKey},master` },
    ];
    for (const entries of attempts) {
      expect(await client.failure('GetPush', unknownPush, masterMetadata(app, entries)), JSON.stringify(entries)).toEqual({
        code: status.UNAUTHENTICATED,
        message: 'Unauthorized: unknown app id or wrong key.',
        heraldCode: 401,
        detail: { code: 401, error: 'Unauthorized: unknown app id or wrong key.', retryable: false },
      });
    }
  });

  it('must be the master key: the app key alone is PERMISSION_DENIED (403) and sends nothing', async () => {
    const records = await p.recordCount();
    const appKey = masterMetadata(p.h.app, { 'x-svc-id': p.h.app.id, 'x-svc-key': p.h.app.key });
    expect(await client.failure('SendPush', { data: JSON.stringify(alert) }, appKey)).toMatchObject({ code: status.PERMISSION_DENIED, heraldCode: 403 });
    expect(await client.failure('ListScheduledPushes', {}, appKey)).toMatchObject({ code: status.PERMISSION_DENIED, heraldCode: 403 });
    expect(await p.recordCount()).toBe(records);
  });

  it('opens every method: an unknown push is NOT_FOUND (101), not an auth failure', async () => {
    expect(await client.failure('GetPush', unknownPush)).toEqual({
      code: status.NOT_FOUND,
      message: 'No push record with this objectId.',
      heraldCode: 101,
      detail: { code: 101, error: 'No push record with this objectId.', retryable: false },
    });
  });
});
