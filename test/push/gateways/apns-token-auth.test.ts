import { generateKeyPairSync } from 'node:crypto';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { gatewayTransportKinds, type GatewayTransportKind } from '../../../src/push/gateways/gateway-transport.ts';
import { ApnsClient } from '../../../src/push/gateways/apns-client.ts';
import type { FakeApns } from '../../support/gateways/fake-apns.ts';
import { alertPayload, alertTo, apnsTokenAuth, deviceToken, startFakeApns } from '../../support/gateways/gateway-fixtures.ts';
import { testPki, type TestPki } from '../../support/gateways/test-pki.ts';
import { ManualClock } from '../../support/manual-clock.ts';

const minute = 60_000;

let pki: TestPki;
let fake: FakeApns;
let clients: ApnsClient[] = [];

beforeAll(async () => {
  pki = await testPki();
});

afterEach(async () => {
  await Promise.all(clients.map((client) => client.close()));
  clients = [];
  await fake.close();
});

function tokenClient(options: Partial<ConstructorParameters<typeof ApnsClient>[0]> = {}): ApnsClient {
  const client = new ApnsClient({ endpoint: fake.origin, ca: pki.ca.certPem, auth: apnsTokenAuth(pki), transport, ...options });
  clients.push(client);
  return client;
}

function authorizationsSeen(): Set<string> {
  return new Set(fake.log.requests.map((request) => request.headers.authorization ?? ''));
}

/** The transport of the describe block running now. */
let transport: GatewayTransportKind = 'herald';

describe.each(gatewayTransportKinds)('APNs token auth (%s transport)', (kind) => {
  beforeAll(() => {
    transport = kind;
  });

  it('delivers with the path, provider token and every header the delivery sets', async () => {
    fake = await startFakeApns(pki);
    const client = tokenClient();
    const outcome = await client.send(alertTo(pki, 1, { priority: 5, expiration: 1_900_000_000, collapseId: 'score-update', pushType: 'background' }));

    expect(outcome).toEqual({ kind: 'delivered' });
    const [request] = fake.deliveriesTo(deviceToken(1));
    expect(request?.headers).toMatchObject({
      ':method': 'POST',
      ':path': `/3/device/${deviceToken(1)}`,
      'apns-topic': pki.apns.topic,
      'apns-push-type': 'background',
      'apns-priority': '5',
      'apns-expiration': '1900000000',
      'apns-collapse-id': 'score-update',
    });
    expect(request?.headers.authorization).toMatch(/^bearer [\w-]+\.[\w-]+\.[\w-]+$/);
    expect(request?.payload.equals(alertPayload)).toBe(true);
  });

  it('leaves out the optional headers a delivery does not set', async () => {
    fake = await startFakeApns(pki);
    await tokenClient().send(alertTo(pki, 2));

    const headers = fake.deliveriesTo(deviceToken(2))[0]?.headers ?? {};
    expect(Object.keys(headers)).not.toContain('apns-priority');
    expect(Object.keys(headers)).not.toContain('apns-expiration');
    expect(Object.keys(headers)).not.toContain('apns-collapse-id');
  });

  it('signs one provider token for many sends and a new one only after the refresh age', async () => {
    const clientClock = new ManualClock();
    const fakeClock = new ManualClock(clientClock.now());
    fake = await startFakeApns(pki, { clock: fakeClock });
    const client = tokenClient({ clock: clientClock, tokenRefreshMs: 50 * minute });

    const outcomes = await Promise.all(Array.from({ length: 100 }, (_, n) => client.send(alertTo(pki, n))));
    expect(outcomes.every((outcome) => outcome.kind === 'delivered')).toBe(true);
    expect(authorizationsSeen().size).toBe(1);
    expect(fake.stats.tokenVerifications).toBe(1);

    clientClock.advance(49 * minute);
    fakeClock.advance(49 * minute);
    await client.send(alertTo(pki, 100));
    expect(authorizationsSeen().size).toBe(1);

    clientClock.advance(1 * minute);
    fakeClock.advance(1 * minute);
    await Promise.all([client.send(alertTo(pki, 101)), client.send(alertTo(pki, 102)), client.send(alertTo(pki, 103))]);
    expect(authorizationsSeen().size).toBe(2);
    expect(fake.log.deliveryCount).toBe(104);
  });

  it('answers ExpiredProviderToken by signing a new token and sending once more, delivering once', async () => {
    const clientClock = new ManualClock();
    const fakeClock = new ManualClock(clientClock.now());
    fake = await startFakeApns(pki, { clock: fakeClock });
    const client = tokenClient({ clock: clientClock, tokenRefreshMs: 55 * minute });
    await client.send(alertTo(pki, 1));

    // The gateway's clock runs 11 minutes ahead: to it the token is over an hour old, to us it is not due.
    clientClock.advance(50 * minute);
    fakeClock.advance(61 * minute);
    const outcome = await client.send(alertTo(pki, 2));

    expect(outcome).toEqual({ kind: 'delivered' });
    expect(fake.log.requestsTo(deviceToken(2)).map((request) => request.reason ?? request.status)).toEqual(['ExpiredProviderToken', 200]);
    expect(fake.log.countOf(deviceToken(2))).toBe(1);
    expect(authorizationsSeen().size).toBe(2);
  });

  it('retries an InvalidProviderToken answer once with a new token', async () => {
    fake = await startFakeApns(pki);
    fake.respondTo(deviceToken(3), [{ status: 403, reason: 'InvalidProviderToken' }]);
    const outcome = await tokenClient().send(alertTo(pki, 3));

    expect(outcome).toEqual({ kind: 'delivered' });
    const sent = fake.log.requestsTo(deviceToken(3));
    expect(sent.map((request) => request.status)).toEqual([403, 200]);
    expect(sent[0]?.headers.authorization).not.toBe(sent[1]?.headers.authorization);
  });

  it('fails with InvalidProviderToken when a fresh token is refused too, without signing a token per delivery', async () => {
    const stranger = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    fake = await startFakeApns(pki, { keys: [{ keyId: pki.apns.key.keyId, teamId: pki.apns.teamId, publicKey: stranger.publicKey }] });
    const client = tokenClient();

    const refused = { kind: 'failed', reason: 'InvalidProviderToken', cause: expect.stringMatching(/^answered 403: .*InvalidProviderToken/) };
    expect(await client.send(alertTo(pki, 4))).toEqual(refused);
    expect(fake.log.requestsTo(deviceToken(4))).toHaveLength(2);
    expect(await client.send(alertTo(pki, 5))).toEqual(refused);
    expect(fake.log.requestsTo(deviceToken(5))).toHaveLength(1);
    expect(authorizationsSeen().size).toBe(2);
  });

  it('refuses a provider token of a team that does not own the topic', async () => {
    fake = await startFakeApns(pki, {
      keys: [{ keyId: pki.apns.key.keyId, teamId: pki.apns.teamId, publicKey: pki.apns.key.publicKey, topics: ['com.someone.else'] }],
    });
    expect(await tokenClient().send(alertTo(pki, 6))).toEqual({ kind: 'failed', reason: 'TopicDisallowed', cause: expect.stringMatching(/^answered 400: .*TopicDisallowed/) });
  });
});
