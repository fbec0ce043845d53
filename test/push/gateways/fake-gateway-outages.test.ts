import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ApnsClient } from '../../../src/push/gateways/apns-client.ts';
import { FcmClient } from '../../../src/push/gateways/fcm-client.ts';
import type { DeliveryTagger } from '../../support/gateways/delivery-log.ts';
import type { FakeApns } from '../../support/gateways/fake-apns.ts';
import type { FakeFcm } from '../../support/gateways/fake-fcm.ts';
import { alertTo, apnsTokenAuth, deviceToken, fcmAccount, fcmMessage, startFakeApns, startFakeFcm } from '../../support/gateways/gateway-fixtures.ts';
import { testPki, type TestPki } from '../../support/gateways/test-pki.ts';

/**
 * The controls the fault tests use to take a fake gateway out of service for
 * a while (GOAWAY on every session, 503 to every send) and to count
 * deliveries per push, checked against Herald's own gateway clients.
 */
let pki: TestPki;
let apns: FakeApns | undefined;
let fcm: FakeFcm | undefined;
const closers: (() => Promise<void>)[] = [];

const markerTagger: DeliveryTagger = (body) => /"marker":"([a-z0-9-]+)"/.exec(body.toString('utf8'))?.[1];

beforeAll(async () => {
  pki = await testPki();
});

afterEach(async () => {
  await Promise.all(closers.splice(0).map((close) => close()));
  await apns?.close();
  await fcm?.close();
  apns = undefined;
  fcm = undefined;
});

function apnsClient(fake: FakeApns): ApnsClient {
  const client = new ApnsClient({ endpoint: fake.origin, ca: pki.ca.certPem, auth: apnsTokenAuth(pki), sessions: 1 });
  closers.push(() => client.close());
  return client;
}

function fcmClient(fake: FakeFcm): FcmClient {
  const client = new FcmClient({ account: fcmAccount(pki, fake), endpoint: fake.origin, ca: pki.ca.certPem, sessions: 1 });
  closers.push(() => client.close());
  return client;
}

describe('a fake APNs going away on every session', () => {
  it('refuses every send while on, without acting on any, and delivers again once off', async () => {
    apns = await startFakeApns(pki);
    const client = apnsClient(apns);
    expect(await client.send(alertTo(pki, 1))).toEqual({ kind: 'delivered' });

    apns.goawayEverySession(true);
    for (let n = 2; n < 5; n++) {
      const outcome = await client.send(alertTo(pki, n));
      expect(outcome.kind, JSON.stringify(outcome)).toBe('retry');
    }
    expect(apns.log.requestCount).toBe(1);
    expect(apns.stats.goaways).toBeGreaterThanOrEqual(3);

    apns.goawayEverySession(false);
    expect(await client.send(alertTo(pki, 2))).toEqual({ kind: 'delivered' });
    expect(apns.log.countOf(deviceToken(2))).toBe(1);
    expect(apns.log.deliveryCount).toBe(2);
  });

  it('counts accepted deliveries per push by the tag its payload carries', async () => {
    apns = await startFakeApns(pki, { tagger: markerTagger, record: 'count' });
    const client = apnsClient(apns);
    const tagged = (n: number, marker: string) => alertTo(pki, n, { payload: Buffer.from(JSON.stringify({ aps: { alert: 'hi' }, marker })) });
    apns.respondTo(deviceToken(3), [{ status: 410, reason: 'Unregistered', timestamp: 1 }]);
    await Promise.all([client.send(tagged(1, 'push-a')), client.send(tagged(2, 'push-a')), client.send(tagged(1, 'push-b')), client.send(tagged(3, 'push-a'))]);
    await client.send(tagged(1, 'push-a'));
    await client.send(alertTo(pki, 4));

    expect(Object.fromEntries(apns.log.deliveriesTagged('push-a'))).toEqual({ [deviceToken(1)]: 2, [deviceToken(2)]: 1 });
    expect(Object.fromEntries(apns.log.deliveriesTagged('push-b'))).toEqual({ [deviceToken(1)]: 1 });
    expect(apns.log.deliveriesTagged('push-c').size).toBe(0);
    // The last answer per push and token, refusals included.
    expect(Object.fromEntries(apns.log.lastAnswersTagged('push-a'))).toEqual({ [deviceToken(1)]: 200, [deviceToken(2)]: 200, [deviceToken(3)]: 410 });
    expect(apns.log.lastAnswersTagged('push-c').size).toBe(0);
  });
});

describe('a fake FCM out of service', () => {
  it('refuses every send while going away on every session, and delivers again once it stops', async () => {
    fcm = await startFakeFcm(pki);
    const client = fcmClient(fcm);
    expect(await client.send({ body: fcmMessage('device-a') })).toEqual({ kind: 'delivered' });

    fcm.goawayEverySession(true);
    for (const token of ['device-b', 'device-c']) {
      const outcome = await client.send({ body: fcmMessage(token) });
      expect(outcome.kind, JSON.stringify(outcome)).toBe('retry');
    }
    expect(fcm.log.requestCount).toBe(1);
    expect(fcm.goaways).toBeGreaterThanOrEqual(2);

    fcm.goawayEverySession(false);
    expect(await client.send({ body: fcmMessage('device-b') })).toEqual({ kind: 'delivered' });
    expect(fcm.log.countOf('device-b')).toBe(1);
  });

  it('answers its default answer to every unscripted send until told otherwise, and tags what it accepts', async () => {
    fcm = await startFakeFcm(pki, { tagger: markerTagger });
    const client = fcmClient(fcm);
    fcm.setDefaultAnswer({ errorCode: 'UNAVAILABLE' });
    const refused = await client.send({ body: fcmMessage('device-a', { data: { marker: 'push-a' } }) });
    expect(refused).toMatchObject({ kind: 'retry' });
    expect(fcm.log.requestsTo('device-a').map((request) => request.status)).toEqual([503]);

    fcm.setDefaultAnswer({ status: 200 });
    expect(await client.send({ body: fcmMessage('device-a', { data: { marker: 'push-a' } }) })).toEqual({ kind: 'delivered' });
    expect(Object.fromEntries(fcm.log.deliveriesTagged('push-a'))).toEqual({ 'device-a': 1 });
    expect(Object.fromEntries(fcm.log.lastAnswersTagged('push-a'))).toEqual({ 'device-a': 200 });
    fcm.setDefaultAnswer({ errorCode: 'UNREGISTERED' });
    await client.send({ body: fcmMessage('device-a', { data: { marker: 'push-a' } }) });
    expect(Object.fromEntries(fcm.log.lastAnswersTagged('push-a'))).toEqual({ 'device-a': 404 });
  });
});
