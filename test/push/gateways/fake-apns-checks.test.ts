import { connect } from 'node:http2';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApnsClient } from '../../../src/push/gateways/apns-client.ts';
import type { ApnsDelivery, DeliveryOutcome } from '../../../src/push/gateways/delivery.ts';
import type { ApnsAnswer, FakeApns } from '../../support/gateways/fake-apns.ts';
import { alertTo, apnsTokenAuth, deviceToken, startFakeApns } from '../../support/gateways/gateway-fixtures.ts';
import { testPki, type TestPki } from '../../support/gateways/test-pki.ts';

let pki: TestPki;
let fake: FakeApns;
let client: ApnsClient;

beforeAll(async () => {
  pki = await testPki();
  fake = await startFakeApns(pki);
  client = new ApnsClient({ endpoint: fake.origin, ca: pki.ca.certPem, auth: apnsTokenAuth(pki) });
});

afterAll(async () => {
  await client.close();
  await fake.close();
});

describe('the fake APNs checks requests as APNs does', () => {
  const bad: [string, (n: number) => Partial<ApnsDelivery>, DeliveryOutcome][] = [
    ['a token that is not hex', () => ({ token: 'not-a-device-token' }), { kind: 'invalid-token', reason: 'BadDeviceToken', unregistered: false }],
    ['a missing topic', () => ({ topic: '' }), { kind: 'failed', reason: 'MissingTopic' }],
    ['an unknown push type', () => ({ pushType: 'shout' }), { kind: 'failed', reason: 'InvalidPushType' }],
    ['a priority other than 5 or 10', () => ({ priority: 7 as 5 }), { kind: 'failed', reason: 'BadPriority' }],
    ['an expiration that is not a number', () => ({ expiration: Number.NaN }), { kind: 'failed', reason: 'BadExpirationDate' }],
    ['a collapse id over 64 bytes', () => ({ collapseId: 'x'.repeat(65) }), { kind: 'failed', reason: 'BadCollapseId' }],
    ['an empty payload', () => ({ payload: Buffer.alloc(0) }), { kind: 'failed', reason: 'PayloadEmpty' }],
    ['a payload over 4096 bytes', () => ({ payload: Buffer.from(JSON.stringify({ aps: { alert: 'x'.repeat(4100) } })) }), { kind: 'failed', reason: 'PayloadTooLarge' }],
    // The fake's word for it, BadPayload, is not among Apple's documented reasons: the client counts it as Other.
    ['a payload that is not JSON', () => ({ payload: Buffer.from('{"aps":') }), { kind: 'failed', reason: 'Other' }],
  ];

  it.each(bad)('refuses %s', async (_name, change, expected) => {
    expect(await client.send(alertTo(pki, 1, change(1)))).toEqual({ ...expected, cause: expect.stringMatching(/^answered 4\d\d: \{"reason":/) });
  });

  it('accepts a VoIP payload up to 5120 bytes', async () => {
    const payload = Buffer.from(JSON.stringify({ aps: {}, call: 'x'.repeat(4500) }));
    expect(await client.send(alertTo(pki, 2, { pushType: 'voip', topic: `${pki.apns.topic}.voip`, payload }))).toEqual({ kind: 'delivered' });
  });

  it('answers scripted errors per device token, then its default', async () => {
    const script: ApnsAnswer[] = [
      { status: 410, reason: 'Unregistered', timestamp: 1_700_000_000_000 },
      { status: 400, reason: 'DeviceTokenNotForTopic' },
    ];
    fake.respondTo(deviceToken(3), script);
    expect(await client.send(alertTo(pki, 3))).toEqual({ kind: 'invalid-token', reason: 'Unregistered', unregistered: true, since: 1_700_000_000_000 });
    expect(await client.send(alertTo(pki, 3))).toEqual({ kind: 'invalid-token', reason: 'DeviceTokenNotForTopic', unregistered: false, cause: 'answered 400: {"reason":"DeviceTokenNotForTopic"}' });
    expect(await client.send(alertTo(pki, 3))).toEqual({ kind: 'delivered' });
  });

  it('answers 405 to other methods, 403 without a provider token, and an apns-id on every answer', async () => {
    const session = connect(fake.origin, { ca: pki.ca.certPem, servername: '' });
    const ask = (headers: Record<string, string>, body?: string): Promise<{ status: number; apnsId: string; text: string }> =>
      new Promise((resolve, reject) => {
        const stream = session.request(headers);
        let text = '';
        let answer = { status: 0, apnsId: '' };
        stream.on('response', (response) => (answer = { status: Number(response[':status']), apnsId: String(response['apns-id']) }));
        stream.on('data', (chunk: Buffer) => (text += chunk.toString()));
        stream.on('end', () => resolve({ ...answer, text }));
        stream.on('error', reject);
        stream.end(body);
      });
    try {
      const get = await ask({ ':method': 'GET', ':path': `/3/device/${deviceToken(4)}` });
      expect(get.status).toBe(405);
      expect(JSON.parse(get.text)).toEqual({ reason: 'MethodNotAllowed' });
      const anonymous = await ask({ ':method': 'POST', ':path': `/3/device/${deviceToken(4)}`, 'apns-topic': pki.apns.topic }, '{"aps":{}}');
      expect(anonymous.status).toBe(403);
      expect(JSON.parse(anonymous.text)).toEqual({ reason: 'MissingProviderToken' });
      expect(anonymous.apnsId).toMatch(/^[0-9a-f-]{36}$/);
    } finally {
      session.close();
    }
  });
});
