import { afterAll, beforeAll, expect, it } from 'vitest';
import { deviceToken } from '../../support/gateways/gateway-fixtures.ts';
import { testApp } from '../../support/test-herald.ts';
import { startPushHerald, uniqueName, type PushHerald } from '../support/push-herald.ts';

let p: PushHerald;
const otherApp = testApp();
beforeAll(async () => {
  p = await startPushHerald({ extraApps: (fakes) => [{ ...otherApp, push: fakes.appPush }] });
});
afterAll(async () => {
  await p?.close();
});

const minute = 60_000;

it('answers a repeat within 5 minutes with the first push and sends once', async () => {
  await p.saveInstallation({ deviceType: 'ios', deviceToken: deviceToken(1), channels: ['dedup'] });
  const body = { channels: ['dedup'], data: { alert: 'Once' }, req_id: uniqueName('r') };
  const records = await p.recordCount();
  const first = await p.send(body);
  expect(first.status, JSON.stringify(first.body)).toBe(201);
  await p.settled(first.body.objectId);

  p.clock.advance(4 * minute);
  const repeat = await p.send(body);
  expect(repeat.status, JSON.stringify(repeat.body)).toBe(200);
  expect(repeat.body).toEqual(first.body);
  expect(await p.recordCount()).toBe(records + 1);
  expect(p.fakes.apns.deliveriesTo(deviceToken(1))).toHaveLength(1);
});

it('takes the same req_id as a new push after 5 minutes', async () => {
  await p.saveInstallation({ deviceType: 'ios', deviceToken: deviceToken(2), channels: ['dedup-later'] });
  const body = { channels: ['dedup-later'], data: { alert: 'Again' }, req_id: uniqueName('r') };
  const first = await p.send(body);
  expect(first.status).toBe(201);
  await p.settled(first.body.objectId);

  p.clock.advance(5 * minute + 1);
  const later = await p.send(body);
  expect(later.status, JSON.stringify(later.body)).toBe(201);
  expect(later.body.objectId).not.toBe(first.body.objectId);
  await p.settled(later.body.objectId);
  expect(p.fakes.apns.deliveriesTo(deviceToken(2))).toHaveLength(2);
});

it('keeps req_ids of different apps apart', async () => {
  const reqId = uniqueName('r');
  const body = { device_type: 'ios', device_ids: [deviceToken(3)], data: { alert: 'A' }, req_id: reqId };
  const first = await p.sendToDevices(body);
  const other = await p.sendToDevices(body, { app: otherApp });
  expect(first.status).toBe(201);
  expect(other.status).toBe(201);
  expect(other.body.objectId).not.toBe(first.body.objectId);
  await p.settled(first.body.objectId);
  await expect.poll(() => p.fakes.apns.deliveriesTo(deviceToken(3)).length, { timeout: 15_000, message: 'deliveries to device 3' }).toBe(2);
});

it('makes one push of 20 concurrent requests with one req_id', async () => {
  await p.saveInstallation({ deviceType: 'ios', deviceToken: deviceToken(4), channels: ['dedup-burst'] });
  const body = { channels: ['dedup-burst'], data: { alert: 'Burst' }, req_id: uniqueName('r') };
  const records = await p.recordCount();
  const answers = await Promise.all(Array.from({ length: 20 }, () => p.send(body)));
  expect(answers.filter((answer) => answer.status === 201)).toHaveLength(1);
  expect(answers.filter((answer) => answer.status === 200)).toHaveLength(19);
  const created = answers.find((answer) => answer.status === 201)?.body;
  for (const answer of answers) expect(answer.body).toEqual(created);
  await p.settled(created?.objectId as string);
  expect(await p.recordCount()).toBe(records + 1);
  expect(p.fakes.apns.deliveriesTo(deviceToken(4))).toHaveLength(1);
});
