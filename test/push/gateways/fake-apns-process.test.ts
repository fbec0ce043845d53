import { execFile } from 'node:child_process';
import { createPrivateKey } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { SignJWT } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApnsClient } from '../../../src/push/gateways/apns-client.ts';
import { deliverWithRetry } from '../../../src/push/gateways/deliver-with-retry.ts';
import { FakeApnsProcess } from '../../support/gateways/fake-apns-process.ts';
import { alertPayload, alertTo, apnsTokenAuth, deviceToken } from '../../support/gateways/gateway-fixtures.ts';
import { testPki, type TestPki } from '../../support/gateways/test-pki.ts';

const run = promisify(execFile);

let pki: TestPki;
let fake: FakeApnsProcess;
let client: ApnsClient;

beforeAll(async () => {
  pki = await testPki();
  fake = await FakeApnsProcess.start({
    cert: pki.server.certPem,
    key: pki.server.keyPem,
    record: 'count',
    keys: [{ keyId: pki.apns.key.keyId, teamId: pki.apns.teamId, publicKeyPem: pki.apns.key.publicKey.export({ type: 'spki', format: 'pem' }).toString() }],
  });
  client = new ApnsClient({ endpoint: fake.origin, ca: pki.ca.certPem, auth: apnsTokenAuth(pki) });
});

afterAll(async () => {
  await client.close();
  await fake.close();
});

describe('the fake APNs in its own process', () => {
  it('runs in a child process and counts deliveries, distinct tokens and duplicates', async () => {
    await fake.reset();
    expect(fake.pid).not.toBe(process.pid);
    const outcomes = await Promise.all(Array.from({ length: 2000 }, (_, n) => client.send(alertTo(pki, n))));
    await client.send(alertTo(pki, 7));

    expect(outcomes.every((outcome) => outcome.kind === 'delivered')).toBe(true);
    const counts = await fake.counts();
    expect(counts).toMatchObject({ requests: 2001, deliveries: 2001, distinctTokens: 2000, duplicates: 1 });
    expect(counts.stats.tokenVerifications).toBe(1);
    expect(counts.cpu.user).toBeGreaterThan(0);
    expect(await fake.countOf(deviceToken(7))).toBe(2);
  });

  it('takes scripted answers and GOAWAY over IPC', async () => {
    await fake.reset();
    await fake.respondTo(deviceToken(1), [{ status: 503, reason: 'ServiceUnavailable' }]);
    const retry = { policy: { maxAttempts: 3, baseDelayMs: 1, maxDelayMs: 5, maxRetryAfterMs: 0 } };
    expect(await deliverWithRetry(client, alertTo(pki, 1), retry)).toEqual({ kind: 'delivered' });

    const sessionsBefore = (await fake.counts()).stats.sessions;
    await fake.goaway();
    const outcomes = await Promise.all(Array.from({ length: 200 }, (_, n) => deliverWithRetry(client, alertTo(pki, 100 + n), { ...retry, policy: { ...retry.policy, maxAttempts: 10 } })));
    expect(outcomes.every((outcome) => outcome.kind === 'delivered')).toBe(true);
    const counts = await fake.counts();
    expect(counts.stats.sessions).toBeGreaterThan(sessionsBefore);
    expect(counts.duplicates).toBe(0);
    expect(counts.deliveries).toBe(201);
  });

  it('serves h2load, the tool that measures the ceiling', async () => {
    await fake.reset();
    const jwt = await new SignJWT({})
      .setProtectedHeader({ alg: 'ES256', kid: pki.apns.key.keyId })
      .setIssuer(pki.apns.teamId)
      .setIssuedAt()
      .sign(createPrivateKey(pki.apns.key.pem));
    const payloadFile = join(pki.dir, 'h2load-payload.json');
    writeFileSync(payloadFile, alertPayload);
    const { stdout } = await run('h2load', [
      ...['-n', '2000', '-c', '2', '-m', '50'],
      ...['-H', `authorization: bearer ${jwt}`, '-H', `apns-topic: ${pki.apns.topic}`, '-H', 'apns-push-type: alert'],
      ...['-d', payloadFile, `${fake.origin}/3/device/${deviceToken(42)}`],
    ]);

    expect(stdout).toMatch(/2000 succeeded, 0 failed/);
    expect(stdout).toMatch(/status codes: 2000 2xx/);
    expect(await fake.counts()).toMatchObject({ deliveries: 2000, distinctTokens: 1 });
  });
});
