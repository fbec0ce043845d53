import { afterAll, beforeAll, expect, it } from 'vitest';
import { deviceToken, hmsApps, xiaomiApps } from '../support/gateways/gateway-fixtures.ts';
import { uniqueName, type PushHerald } from '../push/support/push-herald.ts';
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

it('serves on a port of its own, beside the REST port', () => {
  expect(p.h.grpcPort).toEqual(expect.any(Number));
  expect(p.h.grpcPort).not.toBe(Number(new URL(p.h.baseUrl).port));
});

it('sends by query: the installations the query matches get the message, and the record counts them exactly', async () => {
  const channel = uniqueName('grpc');
  await p.saveInstallation({ deviceType: 'ios', deviceToken: deviceToken(1), channels: [channel] });
  await p.saveInstallation({ deviceType: 'ios', deviceToken: deviceToken(2), channels: [channel], vip: true });
  await p.saveInstallation({ deviceType: 'android', installationId: 'grpc-a1', registrationId: 'fcm-grpc-a1', vendor: 'fcm', channels: [channel] });

  const sent = await client.call('SendPush', {
    data: JSON.stringify({ alert: 'Over gRPC', badge: 3 }),
    channels: [channel],
    notification_id: 'grpcquery1',
    expiration_interval: 3600,
  });
  expect(sent).toEqual({ object_id: expect.stringMatching(/^[A-Za-z0-9]+$/), created_at: expect.any(String), repeated: false });

  await p.settled(sent.object_id);
  expect(p.fakes.apns.deliveriesTo(deviceToken(1))).toHaveLength(1);
  expect(p.fakes.apns.deliveriesTo(deviceToken(2))).toHaveLength(1);
  expect(p.fakes.fcm.deliveriesTo('fcm-grpc-a1')).toHaveLength(1);

  const record = await client.call('GetPush', { object_id: sent.object_id });
  expect(record).toEqual({
    object_id: sent.object_id,
    created_at: sent.created_at,
    updated_at: expect.any(String),
    notification_id: 'grpcquery1',
    status: 'done',
    data: JSON.stringify({ alert: 'Over gRPC', badge: 3 }),
    where: JSON.stringify({ channels: { $in: [channel] } }),
    prod: 'prod',
    expiration_time: new Date(Date.parse(sent.created_at) + 3_600_000).toISOString(),
    devices: 3,
    successes: 3,
    errors: 0,
    invalid_tokens: 0,
    ios_successes: 2,
    android_successes: 1,
  });
});

it('takes where as JSON text with the whole query language', async () => {
  const channel = uniqueName('grpcwhere');
  await p.saveInstallation({ deviceType: 'ios', deviceToken: deviceToken(3), channels: [channel], tier: 'gold' });
  await p.saveInstallation({ deviceType: 'ios', deviceToken: deviceToken(4), channels: [channel], tier: 'silver' });
  const sent = await client.call('SendPush', {
    data: JSON.stringify({ alert: 'Gold only' }),
    where: JSON.stringify({ tier: { $in: ['gold'] } }),
    channels: [channel],
  });
  expect(await p.settled(sent.object_id)).toMatchObject({ status: 'done', devices: 1, successes: 1, where: { tier: { $in: ['gold'] }, channels: { $in: [channel] } } });
  expect(p.fakes.apns.deliveriesTo(deviceToken(3))).toHaveLength(1);
  expect(p.fakes.apns.deliveriesTo(deviceToken(4))).toHaveLength(0);
});

it('sends to listed devices: each listed iOS token and Android installation gets the message once', async () => {
  await p.saveInstallation({ deviceType: 'android', installationId: 'grpc-a2', registrationId: 'fcm-grpc-a2', vendor: 'fcm' });
  const tokens = [deviceToken(10), deviceToken(11), deviceToken(10)];
  const ios = await client.call('SendToDevices', { device_type: 'ios', device_ids: tokens, data: JSON.stringify({ alert: 'Listed' }) });
  const android = await client.call('SendToDevices', { device_type: 'android', device_ids: ['grpc-a2'], data: JSON.stringify({ alert: 'Listed too', title: 'Hi' }) });

  expect(await p.settled(ios.object_id)).toMatchObject({ status: 'done', devices: 2, successes: 2, iosSuccesses: 2 });
  expect(await p.settled(android.object_id)).toMatchObject({ status: 'done', devices: 1, successes: 1, androidSuccesses: 1 });
  expect(p.fakes.apns.deliveriesTo(deviceToken(10))).toHaveLength(1);
  expect(p.fakes.apns.deliveriesTo(deviceToken(11))).toHaveLength(1);
  expect(p.fakes.fcm.deliveriesTo('fcm-grpc-a2')).toHaveLength(1);

  const record = await client.call('GetPush', { object_id: ios.object_id });
  expect(record).toMatchObject({ device_type: 'ios', device_ids: [deviceToken(10), deviceToken(11)], devices: 2, successes: 2, ios_successes: 2 });
});

it('sends to a phone maker\'s registrationIds by vendor and device_profile, as POST /1.1/push/devices does', async () => {
  const data = { alert: 'Listed', title: 'Hi', ref: 3 };
  const viaGrpc = [`hmstoken-${uniqueName('g')}`, `hmstoken-${uniqueName('g')}`];
  const viaRest = [`hmstoken-${uniqueName('r')}`, `hmstoken-${uniqueName('r')}`];
  const sent = await client.call('SendToDevices', { device_type: 'android', vendor: 'HMS', device_profile: 'second', device_ids: viaGrpc, data: JSON.stringify(data) });
  const rest = await p.sendToDevices({ device_type: 'android', vendor: 'HMS', device_profile: 'second', device_ids: viaRest, data });
  expect(rest.status, JSON.stringify(rest.body)).toBe(201);

  for (const objectId of [sent.object_id, rest.body.objectId]) expect(await p.settled(objectId)).toMatchObject({ status: 'done', devices: 2, successes: 2, androidSuccesses: 2 });
  const messages = [...viaGrpc, ...viaRest].map((token) => {
    const deliveries = p.fakes.hms.log.deliveriesTo(token);
    expect(deliveries, token).toHaveLength(1);
    expect(deliveries[0]?.request.appId).toBe(hmsApps.second.appId);
    const { token: _tokens, ...message } = deliveries[0]?.request.message as Record<string, unknown>;
    return message;
  });
  for (const message of messages) expect(message).toEqual(messages[0]);
  expect(await client.call('GetPush', { object_id: sent.object_id })).toMatchObject({ device_type: 'android', device_ids: viaGrpc, devices: 2, successes: 2, android_successes: 2 });

  // Without device_profile, _default; mi-intl through Xiaomi's global service.
  const intl = `mi-${uniqueName('g')}`;
  const global = await client.call('SendToDevices', { device_type: 'android', vendor: 'mi-intl', device_ids: [intl], data: JSON.stringify(data) });
  expect(await p.settled(global.object_id)).toMatchObject({ devices: 1, successes: 1 });
  expect(p.fakes.xiaomi.log.deliveriesTo(intl).map((delivery) => [delivery.request.region, delivery.request.form.restricted_package_name])).toEqual([
    ['global', xiaomiApps._default.packageName],
  ]);
});

it('answers a req_id repeat with the first push, whichever transport sent either', async () => {
  await p.saveInstallation({ deviceType: 'ios', deviceToken: deviceToken(20), channels: ['grpc-dedup'] });
  const body = { channels: ['grpc-dedup'], data: { alert: 'Once' } };
  const records = await p.recordCount();

  const restFirst = { ...body, req_id: uniqueName('r') };
  const first = await p.send(restFirst);
  expect(first.status, JSON.stringify(first.body)).toBe(201);
  const repeat = await client.call('SendPush', { ...restFirst, data: JSON.stringify(restFirst.data) });
  expect(repeat).toEqual({ object_id: first.body.objectId, created_at: first.body.createdAt, repeated: true });

  const grpcFirst = { ...body, req_id: uniqueName('r') };
  const second = await client.call('SendPush', { ...grpcFirst, data: JSON.stringify(grpcFirst.data) });
  expect(second.repeated).toBe(false);
  const restRepeat = await p.send(grpcFirst);
  expect(restRepeat.status, JSON.stringify(restRepeat.body)).toBe(200);
  expect(restRepeat.body).toEqual({ objectId: second.object_id, createdAt: second.created_at });

  await p.settled(first.body.objectId);
  await p.settled(second.object_id);
  expect(await p.recordCount()).toBe(records + 2);
  expect(p.fakes.apns.deliveriesTo(deviceToken(20))).toHaveLength(2);
});

it('takes the iOS environment from x-svc-prod metadata as REST takes it from the X-SVC-Prod header', async () => {
  const metadata = masterMetadata(p.h.app);
  metadata.set('x-svc-prod', '0');
  const sent = await client.call('SendToDevices', { device_type: 'ios', device_ids: [deviceToken(30)], data: JSON.stringify({ alert: 'Dev' }) }, metadata);
  expect(await client.call('GetPush', { object_id: sent.object_id })).toMatchObject({ prod: 'dev' });
  const explicit = await client.call('SendToDevices', { device_type: 'ios', device_ids: [deviceToken(31)], data: JSON.stringify({ alert: 'Prod' }), prod: 'prod' }, metadata);
  expect(await client.call('GetPush', { object_id: explicit.object_id })).toMatchObject({ prod: 'prod' });
});
