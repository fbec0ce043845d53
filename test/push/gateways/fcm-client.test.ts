import { generateKeyPairSync } from 'node:crypto';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { gatewayTransportKinds, type GatewayTransportKind } from '../../../src/push/gateways/gateway-transport.ts';
import { deliverWithRetry } from '../../../src/push/gateways/deliver-with-retry.ts';
import type { DeliveryOutcome } from '../../../src/push/gateways/delivery.ts';
import { FcmClient } from '../../../src/push/gateways/fcm-client.ts';
import type { FcmClientOptions } from '../../../src/push/gateways/fcm-client-options.ts';
import type { FakeFcm, FcmAnswer } from '../../support/gateways/fake-fcm.ts';
import { fcmAccount, fcmMessage, fcmProjectId, startFakeFcm } from '../../support/gateways/gateway-fixtures.ts';
import { testPki, type TestPki } from '../../support/gateways/test-pki.ts';
import { ManualClock } from '../../support/manual-clock.ts';

let pki: TestPki;
let fake: FakeFcm | undefined;
let clients: FcmClient[] = [];

beforeAll(async () => {
  pki = await testPki();
});

afterEach(async () => {
  await Promise.all(clients.map((client) => client.close()));
  clients = [];
  await fake?.close();
  fake = undefined;
});

function fcmClient(gateway: FakeFcm, options: Partial<FcmClientOptions> = {}): FcmClient {
  const client = new FcmClient({ account: fcmAccount(pki, gateway), endpoint: gateway.origin, ca: pki.ca.certPem, transport, ...options });
  clients.push(client);
  return client;
}

function authorizations(gateway: FakeFcm): Set<string> {
  return new Set(gateway.log.requests.map((request) => request.headers.authorization ?? ''));
}

/** The transport of the describe block running now. */
let transport: GatewayTransportKind = 'herald';

describe.each(gatewayTransportKinds)('FCM client (%s transport)', (kind) => {
  beforeAll(() => {
    transport = kind;
  });

  it('delivers a data message with the exact body, to the project path, with JSON content type', async () => {
    fake = await startFakeFcm(pki);
    const body = fcmMessage('device-a', { data: { alert: 'hello', badge: '3' }, android: { priority: 'high', ttl: '3600s' } });
    expect(await fcmClient(fake).send({ body })).toEqual({ kind: 'delivered' });

    const [request] = fake.deliveriesTo('device-a');
    expect(request?.body.equals(body)).toBe(true);
    expect(request?.headers[':path']).toBe(`/v1/projects/${fcmProjectId}/messages:send`);
    expect(request?.headers['content-type']).toBe('application/json');
    expect(request?.headers.authorization).toMatch(/^Bearer ya29\./);
    expect(request?.message?.data).toEqual({ alert: 'hello', badge: '3' });
  });

  it('gets one access token for many sends over few sessions', async () => {
    fake = await startFakeFcm(pki);
    const client = fcmClient(fake, { sessions: 2 });
    const outcomes = await Promise.all(Array.from({ length: 300 }, (_, n) => client.send({ body: fcmMessage(`device-${n}`) })));

    expect(outcomes.every((outcome) => outcome.kind === 'delivered')).toBe(true);
    expect(fake.tokenRequests).toBe(1);
    expect(authorizations(fake).size).toBe(1);
    expect(fake.sessions).toBeLessThanOrEqual(2);
  });

  it('warms up with one access token and one session before any message, which the sends then use', async () => {
    fake = await startFakeFcm(pki);
    const client = fcmClient(fake, { sessions: 2 });
    await client.warm();
    expect(fake.tokenRequests).toBe(1);
    expect(client.sessions).toBe(1);
    expect(fake.log.requests).toHaveLength(0);

    await client.warm();
    expect(await client.send({ body: fcmMessage('device-1') })).toEqual({ kind: 'delivered' });
    expect(fake.tokenRequests).toBe(1);
    expect(fake.sessions).toBe(1);
  });

  it('fetches a new access token in the background shortly before the old one expires', async () => {
    const clientClock = new ManualClock();
    const fakeClock = new ManualClock(clientClock.now());
    fake = await startFakeFcm(pki, { clock: fakeClock, accessTokenTtlSeconds: 600 });
    const client = fcmClient(fake, { clock: clientClock });
    const advance = (ms: number): void => {
      clientClock.advance(ms);
      fakeClock.advance(ms);
    };
    await client.send({ body: fcmMessage('device-1') });
    const first = fake.log.requests[0]?.headers.authorization;

    advance(530_000);
    await client.send({ body: fcmMessage('device-2') });
    expect(fake.tokenRequests).toBe(1);

    // A tenth of the 600 s life early, at 540 s, the refresh starts; the old token serves meanwhile.
    advance(11_000);
    expect(await client.send({ body: fcmMessage('device-3') })).toEqual({ kind: 'delivered' });
    await fake.untilTokenRequests(2);

    // Past the old token's usable life (570 s) the new one is in use, and no third was fetched.
    advance(30_000);
    expect(await client.send({ body: fcmMessage('device-4') })).toEqual({ kind: 'delivered' });
    expect(fake.tokenRequests).toBe(2);
    const last = fake.deliveriesTo('device-4')[0]?.headers.authorization;
    expect(last).toBeDefined();
    expect(last).not.toBe(first);
    expect(authorizations(fake).size).toBe(2);
  });

  it('answers a 401 by getting a new access token and sending once more', async () => {
    fake = await startFakeFcm(pki);
    const client = fcmClient(fake);
    await client.send({ body: fcmMessage('device-1') });
    fake.revokeAccessTokens();

    expect(await client.send({ body: fcmMessage('device-2') })).toEqual({ kind: 'delivered' });
    expect(fake.tokenRequests).toBe(2);
    expect(fake.log.countOf('device-2')).toBe(1);

    // A token refused right after a forced refresh is not refreshed again at once.
    fake.revokeAccessTokens();
    expect(await client.send({ body: fcmMessage('device-3') })).toEqual({ kind: 'failed', reason: 'UNAUTHENTICATED', cause: expect.stringMatching(/^answered 401: \{"error":/) });
    expect(fake.tokenRequests).toBe(2);
  });

  const answers: [string, FcmAnswer, DeliveryOutcome][] = [
    ['UNREGISTERED', { errorCode: 'UNREGISTERED' }, { kind: 'invalid-token', reason: 'UNREGISTERED', unregistered: true }],
    ['an invalid token', { errorCode: 'INVALID_ARGUMENT' }, { kind: 'invalid-token', reason: 'INVALID_ARGUMENT', unregistered: false }],
    ['SENDER_ID_MISMATCH', { errorCode: 'SENDER_ID_MISMATCH' }, { kind: 'invalid-token', reason: 'SENDER_ID_MISMATCH', unregistered: false }],
    ['QUOTA_EXCEEDED with Retry-After', { errorCode: 'QUOTA_EXCEEDED', retryAfter: 7 }, { kind: 'retry', reason: 'QUOTA_EXCEEDED', retryAfterMs: 7000 }],
    ['INTERNAL', { errorCode: 'INTERNAL' }, { kind: 'retry', reason: 'INTERNAL' }],
    ['UNAVAILABLE with Retry-After', { errorCode: 'UNAVAILABLE', retryAfter: 2 }, { kind: 'retry', reason: 'UNAVAILABLE', retryAfterMs: 2000 }],
    ['THIRD_PARTY_AUTH_ERROR', { errorCode: 'THIRD_PARTY_AUTH_ERROR' }, { kind: 'failed', reason: 'THIRD_PARTY_AUTH_ERROR' }],
  ];

  it.each(answers)('classifies %s', async (_name, answer, expected) => {
    fake = await startFakeFcm(pki);
    fake.respondTo('scripted', [answer]);
    // Every answer but one that removes the installation carries the status and the start of its body.
    const cause = expected.kind === 'invalid-token' && expected.unregistered ? {} : { cause: expect.stringMatching(/^answered \d{3}: \{"error":/) };
    expect(await fcmClient(fake).send({ body: fcmMessage('scripted') })).toEqual({ ...expected, ...cause });
  });

  it('fails a message FCM refuses as malformed: a data value that is not a string', async () => {
    fake = await startFakeFcm(pki);
    const outcome = await fcmClient(fake).send({ body: fcmMessage('device-1', { data: { badge: 3 } }) });
    expect(outcome).toEqual({ kind: 'failed', reason: 'INVALID_ARGUMENT', cause: expect.stringMatching(/^answered 400: \{"error":/) });
    expect(fake.log.requests[0]?.status).toBe(400);
  });

  it('delivers once after QUOTA_EXCEEDED when retried', async () => {
    fake = await startFakeFcm(pki);
    fake.respondTo('device-q', [{ errorCode: 'QUOTA_EXCEEDED', retryAfter: 1 }]);
    const waits: number[] = [];
    const outcome = await deliverWithRetry(fcmClient(fake), { body: fcmMessage('device-q') }, {
      policy: { maxAttempts: 3, baseDelayMs: 1, maxDelayMs: 10, maxRetryAfterMs: 60_000 },
      delay: (ms) => {
        waits.push(ms);
        return Promise.resolve();
      },
    });
    expect(outcome).toEqual({ kind: 'delivered' });
    expect(waits).toEqual([1000]);
    expect(fake.log.countOf('device-q')).toBe(1);
  });

  it('fails with AccessTokenRefused when the token endpoint refuses the assertion', async () => {
    fake = await startFakeFcm(pki);
    const stranger = generateKeyPairSync('rsa', { modulusLength: 2048 });
    const account = { ...fcmAccount(pki, fake), privateKey: stranger.privateKey };
    const outcome = await fcmClient(fake, { account }).send({ body: fcmMessage('device-1') });
    // The cause is the token endpoint's OAuth answer.
    expect(outcome).toEqual({ kind: 'failed', reason: 'AccessTokenRefused', cause: expect.stringMatching(/answered 400: \{"error":"invalid_grant"/) });
    expect(fake.log.requestCount).toBe(0);
  });

  it('verifies the token endpoint against the CA setting too', async () => {
    fake = await startFakeFcm(pki, { cert: pki.untrustedServer.certPem, key: pki.untrustedServer.keyPem });
    const outcome = await fcmClient(fake).send({ body: fcmMessage('device-1') });
    expect(outcome.kind).not.toBe('delivered');
    // The cause names TLS's verification error by its code.
    expect(outcome).toMatchObject({
      reason: 'AccessTokenUnavailable',
      cause: expect.stringMatching(/^token endpoint \S+ unreachable: (UNABLE_TO_VERIFY_LEAF_SIGNATURE|SELF_SIGNED_CERT_IN_CHAIN|DEPTH_ZERO_SELF_SIGNED_CERT): \w/),
    });
    expect(fake.tokenRequests).toBe(0);
  });

  it('refuses the gateway itself when its certificate is not trusted, with a working token endpoint', async () => {
    const tokens = await startFakeFcm(pki);
    fake = await startFakeFcm(pki, { cert: pki.untrustedServer.certPem, key: pki.untrustedServer.keyPem });
    try {
      const outcome = await fcmClient(fake, { account: fcmAccount(pki, tokens) }).send({ body: fcmMessage('device-1') });
      expect(outcome).toEqual({ kind: 'failed', reason: 'ServerCertificateRejected', cause: expect.stringMatching(/^(UNABLE_TO_VERIFY_LEAF_SIGNATURE|SELF_SIGNED_CERT_IN_CHAIN|DEPTH_ZERO_SELF_SIGNED_CERT): /) });
      expect(tokens.tokenRequests).toBe(1);
    } finally {
      await tokens.close();
    }
  });
});
