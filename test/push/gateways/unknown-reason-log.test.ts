import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ApnsClient } from '../../../src/push/gateways/apns-client.ts';
import { FcmClient } from '../../../src/push/gateways/fcm-client.ts';
import type { FakeApns } from '../../support/gateways/fake-apns.ts';
import type { FakeFcm } from '../../support/gateways/fake-fcm.ts';
import { alertTo, apnsTokenAuth, deviceToken, fcmAccount, fcmMessage, startFakeApns, startFakeFcm } from '../../support/gateways/gateway-fixtures.ts';
import { testPki, type TestPki } from '../../support/gateways/test-pki.ts';
import { ManualClock } from '../../support/manual-clock.ts';
import { memoryLogger, type MemoryLogger } from '../../support/memory-logger.ts';

let pki: TestPki;
let closing: (() => Promise<void>)[] = [];

beforeAll(async () => {
  pki = await testPki();
});

afterEach(async () => {
  for (const close of closing.reverse()) await close();
  closing = [];
});

function warnings(log: MemoryLogger): Record<string, unknown>[] {
  return log.lines.filter((line) => line.level === 40);
}

describe('a gateway answering words outside the documented reasons', () => {
  it('logs the first APNs word at once, cut to 200 characters, then one line a minute counting the rest', async () => {
    const clock = new ManualClock();
    const fake: FakeApns = await startFakeApns(pki, { clock });
    const log = memoryLogger('info');
    const client = new ApnsClient({ endpoint: fake.origin, ca: pki.ca.certPem, auth: apnsTokenAuth(pki), clock, logger: log.logger });
    closing.push(() => fake.close(), () => client.close());
    const long = `Made${'Up'.repeat(500)}`;
    fake.respondTo(deviceToken(1), [{ status: 400, reason: long }]);
    for (const n of [2, 3, 4]) fake.respondTo(deviceToken(n), [{ status: 400, reason: `Word${n}` }]);

    for (const n of [1, 2, 3, 4]) expect(await client.send(alertTo(pki, n))).toMatchObject({ kind: 'failed', reason: 'Other' });
    expect(warnings(log)).toHaveLength(1);
    expect(warnings(log)[0]).toMatchObject({ gateway: 'apns', status: 400, word: `${long.slice(0, 200)}…`, heldBack: 0 });

    clock.advance(60_000);
    fake.respondTo(deviceToken(5), [{ status: 400, reason: 'Word5' }]);
    await client.send(alertTo(pki, 5));
    expect(warnings(log)).toHaveLength(2);
    expect(warnings(log)[1]).toMatchObject({ word: 'Word5', heldBack: 3 });
  });

  it('logs nothing for a documented reason', async () => {
    const fake = await startFakeApns(pki);
    const log = memoryLogger('info');
    const client = new ApnsClient({ endpoint: fake.origin, ca: pki.ca.certPem, auth: apnsTokenAuth(pki), logger: log.logger });
    closing.push(() => fake.close(), () => client.close());
    fake.respondTo(deviceToken(1), [{ status: 400, reason: 'BadTopic' }]);
    expect(await client.send(alertTo(pki, 1))).toMatchObject({ kind: 'failed', reason: 'BadTopic' });
    expect(warnings(log)).toEqual([]);
  });

  it('logs an FCM errorCode it does not know, with the status', async () => {
    const fake: FakeFcm = await startFakeFcm(pki);
    const log = memoryLogger('info');
    const client = new FcmClient({ account: fcmAccount(pki, fake), endpoint: fake.origin, ca: pki.ca.certPem, logger: log.logger });
    closing.push(() => fake.close(), () => client.close());
    fake.respondTo('scripted', [{ errorCode: 'BRAND_NEW_CODE' }]);
    expect(await client.send({ body: fcmMessage('scripted') })).toMatchObject({ kind: 'failed', reason: 'Other' });
    expect(warnings(log)).toEqual([expect.objectContaining({ gateway: 'fcm', status: 400, word: 'BRAND_NEW_CODE' })]);
  });
});
