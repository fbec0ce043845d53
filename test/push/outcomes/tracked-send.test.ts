import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { loggedOutcomes } from '../../../src/core/ports/delivery-log-store.ts';
import type { DeliveryLogPolicy } from '../../../src/push/delivery-log/delivery-log-policy.ts';
import { decodeEntries } from '../../../src/push/delivery-log/entries-codec.ts';
import { SliceLog } from '../../../src/push/delivery-log/slice-log.ts';
import { ApnsClient } from '../../../src/push/gateways/apns-client.ts';
import { deliverWithRetry } from '../../../src/push/gateways/deliver-with-retry.ts';
import type { DeliveryOutcome, GatewayClient } from '../../../src/push/gateways/delivery.ts';
import { FcmClient } from '../../../src/push/gateways/fcm-client.ts';
import { SliceEvents } from '../../../src/push/outcomes/slice-events.ts';
import { TrackedSend } from '../../../src/push/sender/tracked-send.ts';
import type { FakeApns } from '../../support/gateways/fake-apns.ts';
import type { FakeFcm } from '../../support/gateways/fake-fcm.ts';
import { alertTo, apnsTokenAuth, deviceToken, fcmAccount, fcmMessage, startFakeApns, startFakeFcm } from '../../support/gateways/gateway-fixtures.ts';
import { testPki, type TestPki } from '../../support/gateways/test-pki.ts';
import { ManualClock } from '../../support/manual-clock.ts';

let pki: TestPki;
let apns: FakeApns | undefined;
let fcm: FakeFcm | undefined;
const closing: { close(): Promise<void> }[] = [];

beforeAll(async () => {
  pki = await testPki();
});

afterEach(async () => {
  await Promise.all(closing.splice(0).map((client) => client.close()));
  await apns?.close();
  await fcm?.close();
  apns = undefined;
  fcm = undefined;
});

const quickRetries = { policy: { maxAttempts: 4, baseDelayMs: 1, maxDelayMs: 5, maxRetryAfterMs: 10 } };

describe('a tracked send', () => {
  it("counts APNs's attempts and keeps the last answer's status and apns-id", async () => {
    apns = await startFakeApns(pki);
    apns.respondTo(deviceToken(7), [{ status: 503, reason: 'ServiceUnavailable' }]);
    const client = new ApnsClient({ endpoint: apns.origin, ca: pki.ca.certPem, auth: apnsTokenAuth(pki) });
    closing.push(client);
    const send = new TrackedSend(client, null, new ManualClock());
    const outcome = await deliverWithRetry(send, alertTo(pki, 7), quickRetries);
    expect(outcome).toEqual({ kind: 'delivered' });
    const requests = apns.log.requestsTo(deviceToken(7));
    expect(requests.map((request) => request.status)).toEqual([503, 200]);
    expect(send).toMatchObject({ attempts: 2, status: 200, messageId: requests[1]?.apnsId });
    expect(send.latencyMs()).toBeGreaterThan(0);
  });

  it("keeps FCM's status for a token it refuses", async () => {
    fcm = await startFakeFcm(pki);
    fcm.respondTo('gone', [{ errorCode: 'UNREGISTERED' }]);
    const client = new FcmClient({ account: fcmAccount(pki, fcm), endpoint: fcm.origin, ca: pki.ca.certPem });
    closing.push(client);
    const send = new TrackedSend(client, null, new ManualClock());
    const outcome = await deliverWithRetry(send, { body: fcmMessage('gone') }, quickRetries);
    expect(outcome).toMatchObject({ kind: 'invalid-token', reason: 'UNREGISTERED', unregistered: true });
    expect(send).toMatchObject({ attempts: 1, status: 404, messageId: undefined });
  });

  it('answers Expired without sending once the push has expired, counting only what was sent', async () => {
    const clock = new ManualClock();
    const expiresAt = clock.now() + 1000;
    let sent = 0;
    const busy: GatewayClient<string> = {
      gateway: 'fcm',
      send: () => {
        sent += 1;
        clock.advance(2000);
        return Promise.resolve<DeliveryOutcome>({ kind: 'retry', reason: 'UNAVAILABLE' });
      },
    };
    const send = new TrackedSend(busy, expiresAt, clock);
    const outcome = await deliverWithRetry(send, 'token', quickRetries);
    expect(outcome).toMatchObject({ kind: 'failed', reason: 'Expired' });
    expect(sent).toBe(1);
    expect(send.attempts).toBe(1);
  });
});

describe("a slice's events", () => {
  const slice = { appId: 'shop', pushId: 'p1', sliceKey: 's0/0' };
  const policy: DeliveryLogPolicy = { enabled: true, retentionMs: 86_400_000, successes: 'all', sampleRate: 1 };

  function endThree(events: SliceEvents): void {
    const installation = { objectId: 'inst1', createdAt: '', updatedAt: '' };
    events.ended({ installation, token: deviceToken(1), platform: 'ios' }, 'apns', { kind: 'delivered' }, { attempts: 2, status: 200, messageId: 'id-1', latencyMs: () => 3.5 });
    events.ended({ installation: null, token: 'fcm-token-12345678', platform: 'android' }, 'fcm', { kind: 'invalid-token', reason: 'UNREGISTERED', unregistered: true }, { attempts: 1, status: 404, messageId: undefined, latencyMs: () => 1 });
    events.notSent({ installation, token: undefined, platform: 'android' }, 'hms', 'NoRegistrationId');
  }

  it('names the installation, the token suffix, the outcome and the send for each device', () => {
    const clock = new ManualClock();
    const log = new SliceLog(slice, policy, { writeSlice: () => Promise.resolve() });
    const events = new SliceEvents(slice, clock, { keep: true, log });
    endThree(events);
    expect(events.events).toEqual([
      expect.objectContaining({ appId: 'shop', pushId: 'p1', sliceKey: 's0/0', installation: 'inst1', tokenSuffix: deviceToken(1).slice(-8), platform: 'ios', gateway: 'apns', outcome: 'delivered', reason: null, status: 200, messageId: 'id-1', attempts: 2, latencyMs: 3.5, at: clock.now() }),
      expect.objectContaining({ installation: null, tokenSuffix: '12345678', outcome: 'invalidToken', reason: 'UNREGISTERED', unregistered: true, status: 404, messageId: null }),
      expect.objectContaining({ installation: 'inst1', tokenSuffix: null, gateway: 'hms', outcome: 'failed', reason: 'NoRegistrationId', status: null, attempts: 0, latencyMs: 0 }),
    ]);
    // The log holds the same events, encoded as they came.
    const rows = log.rows(clock.now());
    expect(rows.counts).toEqual({ delivered: 1, invalidToken: 1, failed: 1 });
    const logged = loggedOutcomes.flatMap((outcome) => decodeEntries(rows.entries[outcome], slice));
    expect(logged).toEqual(expect.arrayContaining(events.events));
    expect(logged).toHaveLength(3);
  });

  it('keeps no event object when only the delivery log takes them', () => {
    const clock = new ManualClock();
    const log = new SliceLog(slice, policy, { writeSlice: () => Promise.resolve() });
    const events = new SliceEvents(slice, clock, { keep: false, log });
    endThree(events);
    expect(events.events).toEqual([]);
    expect(log.size).toBe(3);
    expect(decodeEntries(log.rows(clock.now()).entries.delivered, slice).map((entry) => entry.messageId)).toEqual(['id-1']);
  });
});
