import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FakeApns } from '../../support/gateways/fake-apns.ts';
import { deviceToken, startFakeApns } from '../../support/gateways/gateway-fixtures.ts';
import { testPki } from '../../support/gateways/test-pki.ts';
import { testApp } from '../../support/test-herald.ts';
import { startPushHerald, type PushHerald } from '../support/push-herald.ts';

/** Two gateways, one per environment: `fakes.apns` plays production, `sandbox` the development one. */
let sandbox: FakeApns;
let p: PushHerald;
/** An app with certificate authentication: a production and a development certificate. */
const certificateApp = testApp();

beforeAll(async () => {
  const pki = await testPki();
  sandbox = await startFakeApns(pki, { environment: 'development' });
  p = await startPushHerald({
    appPush: (fakes) => ({ ...fakes.appPush, apns: { ...fakes.appPush.apns, endpoints: { production: fakes.apns.origin, development: sandbox.origin } } }),
    extraApps: (fakes) => [
      {
        ...certificateApp,
        push: {
          apns: {
            certificates: {
              production: { certFile: pki.apns.production.certFile, keyFile: pki.apns.production.keyFile },
              development: { certFile: pki.apns.development.certFile, keyFile: pki.apns.development.keyFile },
            },
            endpoints: { production: fakes.apns.origin, development: sandbox.origin },
          },
        },
      },
    ],
  });
});
afterAll(async () => {
  await p?.close();
  await sandbox?.close();
});

/** Sends to device `n` and answers which gateway got it, and the record's `prod`. */
async function environmentOf(n: number, body: Record<string, unknown>, headers: Record<string, string> = {}, app = p.h.app) {
  const res = await p.h.request('POST', '/1.1/push/devices', { app, master: true, headers, body: { device_type: 'ios', device_ids: [deviceToken(n)], data: { alert: 'Where?' }, ...body } });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  await expect
    .poll(async () => (await p.h.request('GET', `/1.1/tables/Notifications/${res.body.objectId}`, { app })).body.status, {
      timeout: 15_000,
      message: 'status of the push record',
    })
    .toBe('done');
  const record = (await p.h.request('GET', `/1.1/tables/Notifications/${res.body.objectId}`, { app })).body;
  expect(record.successes).toBe(1);
  const production = p.fakes.apns.deliveriesTo(deviceToken(n)).length;
  const development = sandbox.deliveriesTo(deviceToken(n)).length;
  expect(production + development).toBe(1);
  return { gateway: production === 1 ? 'production' : 'development', prod: record.prod as string };
}

describe('token authentication', () => {
  it('sends to production by default', async () => {
    expect(await environmentOf(1, {})).toEqual({ gateway: 'production', prod: 'prod' });
  });

  it('sends to the sandbox for prod: dev', async () => {
    expect(await environmentOf(2, { prod: 'dev' })).toEqual({ gateway: 'development', prod: 'dev' });
  });

  it('sends to the sandbox when X-SVC-Prod is present with a value other than 1', async () => {
    expect(await environmentOf(3, {}, { 'X-SVC-Prod': '0' })).toEqual({ gateway: 'development', prod: 'dev' });
  });

  it('sends to production when X-SVC-Prod is 1', async () => {
    expect(await environmentOf(4, {}, { 'X-SVC-Prod': '1' })).toEqual({ gateway: 'production', prod: 'prod' });
  });

  it('reads X-LC-Prod, as the hosted service SDKs send it, the same way', async () => {
    expect(await environmentOf(70, {}, { 'X-LC-Prod': '0' })).toEqual({ gateway: 'development', prod: 'dev' });
  });

  it('lets prod win over the header', async () => {
    expect(await environmentOf(5, { prod: 'prod' }, { 'X-SVC-Prod': '0' })).toEqual({ gateway: 'production', prod: 'prod' });
    expect(await environmentOf(6, { prod: 'dev' }, { 'X-SVC-Prod': '1' })).toEqual({ gateway: 'development', prod: 'dev' });
  });

  it('chooses the environment for query pushes too', async () => {
    await p.saveInstallation({ deviceType: 'ios', deviceToken: deviceToken(7), channels: ['env-q'] });
    const res = await p.send({ channels: ['env-q'], data: { alert: 'Q' }, prod: 'dev' });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(await p.settled(res.body.objectId)).toMatchObject({ successes: 1, prod: 'dev' });
    expect(sandbox.deliveriesTo(deviceToken(7))).toHaveLength(1);
    expect(p.fakes.apns.deliveriesTo(deviceToken(7))).toHaveLength(0);
  });
});

describe('certificate authentication', () => {
  // Each fake accepts only certificates of its own environment, so success proves the right certificate was used.
  it('uses the production certificate at the production gateway', async () => {
    expect(await environmentOf(10, { prod: 'prod' }, {}, certificateApp)).toEqual({ gateway: 'production', prod: 'prod' });
  });

  it('uses the development certificate at the sandbox', async () => {
    expect(await environmentOf(11, { prod: 'dev' }, {}, certificateApp)).toEqual({ gateway: 'development', prod: 'dev' });
  });
});
