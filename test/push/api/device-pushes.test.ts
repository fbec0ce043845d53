import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { deviceToken } from '../../support/gateways/gateway-fixtures.ts';
import { testApp } from '../../support/test-herald.ts';
import { startPushHerald, uniqueName, type PushHerald } from '../support/push-herald.ts';

let p: PushHerald;
/** An app with certificate authentication: its production certificate, and a named one for another bundle. */
const certificateApp = testApp();

beforeAll(async () => {
  p = await startPushHerald({
    extraApps: (fakes) => {
      const { pki } = fakes;
      return [
        {
          ...certificateApp,
          push: {
            apns: {
              certificates: {
                production: { certFile: pki.apns.production.certFile, keyFile: pki.apns.production.keyFile },
                profiles: { other: { production: { pfxFile: pki.apns.profile.pfxFile, passphraseFile: pki.apns.profile.passphraseFile } } },
              },
              endpoints: { production: fakes.apns.origin, development: fakes.apns.origin },
            },
          },
        },
      ];
    },
  });
});
afterAll(async () => {
  await p?.close();
});

describe('iOS device lists', () => {
  it('delivers to listed tokens whether or not an installation holds them', async () => {
    await p.saveInstallation({ deviceType: 'ios', deviceToken: deviceToken(1), apnsTopic: 'com.herald.test' });
    const tokens = [deviceToken(1), deviceToken(2), deviceToken(3)];
    const res = await p.sendToDevices({ device_type: 'ios', device_ids: tokens, data: { alert: 'Listed' } });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(res.body).toEqual({ objectId: expect.any(String), createdAt: expect.any(String) });
    const record = await p.settled(res.body.objectId);
    expect(record).toMatchObject({ devices: 3, successes: 3, iosSuccesses: 3, errors: 0, device_type: 'ios', device_ids: tokens });
    for (const token of tokens) expect(p.fakes.apns.deliveriesTo(token)).toHaveLength(1);
  });

  it('sends a token listed twice once', async () => {
    const res = await p.sendToDevices({ device_type: 'ios', device_ids: [deviceToken(4), deviceToken(5), deviceToken(4)], data: { alert: 'Once' } });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(await p.settled(res.body.objectId)).toMatchObject({ devices: 2, successes: 2 });
    expect(p.fakes.apns.deliveriesTo(deviceToken(4))).toHaveLength(1);
  });
});

describe('Android device lists', () => {
  it('resolves installationIds to their FCM registration tokens', async () => {
    await p.saveInstallation({ deviceType: 'android', installationId: 'dev-a1', registrationId: 'fcm-token-a1', vendor: 'fcm' });
    await p.saveInstallation({ deviceType: 'android', installationId: 'dev-a2', registrationId: 'fcm-token-a2', vendor: 'fcm' });
    const res = await p.sendToDevices({ device_type: 'android', device_ids: ['dev-a1', 'dev-a2'], data: { alert: 'Hi' } });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(await p.settled(res.body.objectId)).toMatchObject({ devices: 2, successes: 2, androidSuccesses: 2, errors: 0 });
    expect(p.fakes.fcm.deliveriesTo('fcm-token-a1')).toHaveLength(1);
    expect(p.fakes.fcm.deliveriesTo('fcm-token-a2')).toHaveLength(1);
    // The installationId is the device's identity, never its address.
    expect(p.fakes.fcm.deliveriesTo('dev-a1')).toHaveLength(0);
  });

  it('counts unknown installations and installations without a registration token as errors with their reasons', async () => {
    await p.saveInstallation({ deviceType: 'android', installationId: 'dev-b1', registrationId: 'fcm-token-b1', vendor: 'fcm' });
    await p.saveInstallation({ deviceType: 'android', installationId: 'dev-b2' });
    const before = p.fakes.fcm.log.requestCount;
    const res = await p.sendToDevices({ device_type: 'android', device_ids: ['dev-b1', 'dev-b2', 'dev-nobody'], data: { alert: 'Hi' } });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    const record = await p.settled(res.body.objectId);
    expect(record).toMatchObject({
      devices: 3,
      successes: 1,
      androidSuccesses: 1,
      errors: 2,
      errorReasons: { NoRegistrationId: 1, UnknownInstallation: 1 },
    });
    expect(p.fakes.fcm.log.requestCount - before).toBe(1);
  });
});

describe('named certificates', () => {
  const certPush = (body: Record<string, unknown>) => p.h.request('POST', '/1.1/push/devices', { app: certificateApp, master: true, body });
  const certRecord = async (objectId: string) => {
    await expect
      .poll(async () => (await p.h.request('GET', `/1.1/tables/Notifications/${objectId}`, { app: certificateApp })).body.status, {
        timeout: 15_000,
        message: 'status of the push record',
      })
      .toBe('done');
    return (await p.h.request('GET', `/1.1/tables/Notifications/${objectId}`, { app: certificateApp })).body;
  };

  it('sends with the app certificate and its bundle as topic by default', async () => {
    const res = await certPush({ device_type: 'ios', device_ids: [deviceToken(100)], data: { alert: 'Default' } });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(await certRecord(res.body.objectId)).toMatchObject({ successes: 1 });
    const [delivery] = p.fakes.apns.deliveriesTo(deviceToken(100));
    expect(delivery?.headers['apns-topic']).toBe(p.fakes.pki.apns.topic);
    // Certificate authentication: no provider token.
    expect(delivery?.headers.authorization).toBeUndefined();
  });

  it('picks the certificate device_profile names, which serves its own bundle', async () => {
    const res = await certPush({ device_type: 'ios', device_ids: [deviceToken(101)], device_profile: 'other', data: { alert: 'Other app' } });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(await certRecord(res.body.objectId)).toMatchObject({ successes: 1, errors: 0 });
    // The fake accepts the other bundle's topic only on a connection made with that bundle's certificate.
    const [delivery] = p.fakes.apns.deliveriesTo(deviceToken(101));
    expect(delivery?.headers['apns-topic']).toBe(p.fakes.pki.apns.profileTopic);
  });

  it('picks the certificate an installation names in deviceProfile', async () => {
    const channel = uniqueName('profile');
    for (const [n, profile] of [[102, 'other'], [103, undefined]] as const) {
      const res = await p.h.request('POST', '/1.1/installations', {
        app: certificateApp,
        body: { deviceType: 'ios', deviceToken: deviceToken(n), channels: [channel], ...(profile === undefined ? {} : { deviceProfile: profile }) },
      });
      expect(res.status, JSON.stringify(res.body)).toBe(201);
    }
    const res = await p.h.request('POST', '/1.1/push', { app: certificateApp, master: true, body: { channels: [channel], data: { alert: 'Each its own' } } });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(await certRecord(res.body.objectId)).toMatchObject({ devices: 2, successes: 2 });
    expect(p.fakes.apns.deliveriesTo(deviceToken(102))[0]?.headers['apns-topic']).toBe(p.fakes.pki.apns.profileTopic);
    expect(p.fakes.apns.deliveriesTo(deviceToken(103))[0]?.headers['apns-topic']).toBe(p.fakes.pki.apns.topic);
  });

  it('sends nothing for a profile the app does not have, and says why', async () => {
    const res = await certPush({ device_type: 'ios', device_ids: [deviceToken(104)], device_profile: 'unknown', data: { alert: 'Lost' } });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(await certRecord(res.body.objectId)).toMatchObject({ devices: 1, successes: 0, errors: 1, errorReasons: { NoApnsCredentials: 1 } });
    expect(p.fakes.apns.log.requestsTo(deviceToken(104))).toHaveLength(0);
  });
});
