import { afterAll, beforeAll, expect, it } from 'vitest';
import { deviceToken } from '../../support/gateways/gateway-fixtures.ts';
import { startPushGatewayFakes, type PushGatewayFakes } from '../../support/push-gateways.ts';
import { startTestHerald, type TestHerald } from '../../support/test-herald.ts';

let fakes: PushGatewayFakes;
let h: TestHerald;
beforeAll(async () => {
  fakes = await startPushGatewayFakes();
  h = await startTestHerald({ push: fakes.appPush, engine: fakes.engine({ installationShards: 4, sliceSize: 20 }) });
});
afterAll(async () => {
  await h?.close();
  await fakes?.close();
});

it('delivers a channel push to iOS and Android devices and counts it', async () => {
  for (let n = 0; n < 30; n++) {
    const res = await h.request('POST', '/1.1/installations', { body: { deviceType: 'ios', deviceToken: deviceToken(n), channels: n % 2 === 0 ? ['news'] : ['sport'] } });
    expect(res.status).toBe(201);
  }
  for (let n = 0; n < 10; n++) {
    const res = await h.request('POST', '/1.1/installations', {
      body: { deviceType: 'android', installationId: `android-${n}`, registrationId: `reg-${n}`, vendor: 'fcm', channels: ['news'] },
    });
    expect(res.status).toBe(201);
  }
  const sent = await h.request('POST', '/1.1/push', { master: true, body: { channels: ['news'], data: { alert: 'Hello' } } });
  expect(sent.status).toBe(201);
  await fakes.apns.waitForDeliveries(15, 10_000);
  await fakes.fcm.waitForDeliveries(10, 10_000);
  await expect
    .poll(async () => (await h.request('GET', `/1.1/tables/Notifications/${sent.body.objectId}`)).body.status, { timeout: 10_000, message: 'status of the push record' })
    .toBe('done');
  const record = await h.request('GET', `/1.1/tables/Notifications/${sent.body.objectId}`);
  expect(record.body).toMatchObject({ devices: 25, successes: 25, errors: 0, iosSuccesses: 15, androidSuccesses: 10 });
});
