import { status } from '@grpc/grpc-js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { maxNestingDepth } from '../../src/query/json-nesting.ts';
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
    { name: 'a vendor no gateway serves', path: '/1.1/push/devices', body: { device_type: 'android', vendor: 'nokia', device_ids: ['r1'], data: alert } },
    { name: 'a registrationId with a space', path: '/1.1/push/devices', body: { device_type: 'android', vendor: 'oppo', device_ids: ['CN_ with space'], data: alert } },
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

describe('nesting: one limit for REST bodies and the bodies gRPC messages stand for', () => {
  /** `data` as JSON text: an alert, and a value `levels` arrays deep. */
  const deepData = (levels: number): string => `{"alert":"Hi","n":${'['.repeat(levels)}1${']'.repeat(levels)}}`;
  /** A where as JSON text whose value is `levels` arrays deep. */
  const deepWhere = (levels: number): string => `{"n":${'['.repeat(levels)}1${']'.repeat(levels)}}`;
  const tooDeep = `The request body nests deeper than ${maxNestingDepth} levels.`;

  /** REST answers `error` (HTTP 400, or 413 for the size limit) to the raw body, gRPC the same as INVALID_ARGUMENT to the message; neither stores a record. */
  async function bothRefuse(rawBody: string, message: Record<string, unknown>, error: { code: number; error: string }): Promise<void> {
    const records = await p.recordCount();
    const rest = await p.h.request('POST', '/1.1/push', { master: true, rawBody });
    expect({ status: rest.status, body: rest.body }).toEqual({ status: error.code === 413 ? 413 : 400, body: error });
    const failure = await client.failure('SendPush', message);
    expect(failure).toEqual({ code: status.INVALID_ARGUMENT, message: error.error, heraldCode: error.code, detail: { ...error, retryable: false } });
    expect(await p.recordCount()).toBe(records);
  }

  // The body is the first level, data the second: data's arrays may go 62 deep.
  it.each([
    ['100 levels deep (REST refused it, gRPC took it)', 100],
    ['200,000 levels deep (gRPC answered INTERNAL)', 200_000],
    ['one level past the limit', maxNestingDepth - 1],
  ])('refuses data %s: 107 on both transports', async (_title, levels) => {
    const data = deepData(levels);
    await bothRefuse(`{"channels":["deep"],"data":${data}}`, { channels: ['deep'], data }, { code: 107, error: tooDeep });
  });

  it('takes data exactly as deep as the limit on both', async () => {
    const data = deepData(maxNestingDepth - 2);
    const rest = await p.h.request('POST', '/1.1/push', { master: true, rawBody: `{"channels":["deep"],"data":${data}}` });
    expect(rest.status, JSON.stringify(rest.body)).toBe(201);
    expect(await client.call('SendPush', { channels: ['deep'], data })).toMatchObject({ repeated: false });
  });

  it('refuses a where nested past the limit with 107 on both, and one too large for a push body with 413', async () => {
    const deep = deepWhere(1_500);
    const tooDeepWhere = { code: 107, error: `where nests deeper than ${maxNestingDepth} levels` };
    await bothRefuse(JSON.stringify({ where: deep, data: alert }), { where: deep, data: JSON.stringify(alert) }, tooDeepWhere);
    const huge = deepWhere(200_000);
    await bothRefuse(JSON.stringify({ where: huge, data: alert }), { where: huge, data: JSON.stringify(alert) }, { code: 413, error: 'A push body is at most 4096 bytes.' });
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
