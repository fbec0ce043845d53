import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { FcmClient } from '../../../src/push/gateways/fcm-client.ts';
import type { FcmClientOptions } from '../../../src/push/gateways/fcm-client-options.ts';
import type { FakeFcm } from '../../support/gateways/fake-fcm.ts';
import { fcmAccount, fcmMessage, startFakeFcm } from '../../support/gateways/gateway-fixtures.ts';
import { testPki, type TestPki } from '../../support/gateways/test-pki.ts';
import { ManualClock } from '../../support/manual-clock.ts';
import { memoryLogger, type MemoryLogger } from '../../support/memory-logger.ts';

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

interface Setup {
  fake: FakeFcm;
  client: FcmClient;
  clock: ManualClock;
  log: MemoryLogger;
}

/** A fake FCM and a client whose token endpoint must answer whole within `requestTimeoutMs` (default 500 ms). */
async function setup(options: Partial<FcmClientOptions> = {}): Promise<Setup> {
  const clock = new ManualClock();
  const gateway = await startFakeFcm(pki, { clock });
  fake = gateway;
  const log = memoryLogger('info');
  const client = new FcmClient({ account: fcmAccount(pki, gateway), endpoint: gateway.origin, ca: pki.ca.certPem, clock, logger: log.logger, requestTimeoutMs: 500, ...options });
  clients.push(client);
  return { fake: gateway, client, clock, log };
}

const warnings = (log: MemoryLogger): Record<string, unknown>[] => log.lines.filter((line) => line.level === 40);
/** What a send gets while the token endpoint fails: a retry, whose cause says what the endpoint did. */
const unavailable = (cause: string | RegExp) => ({ kind: 'retry', reason: 'AccessTokenUnavailable', cause: typeof cause === 'string' ? expect.stringContaining(cause) : expect.stringMatching(cause) });

describe('an FCM token endpoint that misbehaves', () => {
  it('cuts off one that trickles its answer a byte at a time at the deadline, and says so', async () => {
    const { fake, client, log } = await setup();
    fake.setTokenEndpoint({ kind: 'trickle', intervalMs: 100 });
    const started = performance.now();
    expect(await client.send({ body: fcmMessage('device-1') })).toEqual(unavailable('gave no whole answer within 500 ms'));
    expect(performance.now() - started).toBeLessThan(2000);
    expect(fake.tokenEndpointStats.requests).toBe(1);
    await expect.poll(() => fake.tokenEndpointStats.open).toBe(0);
    expect(fake.log.requestCount).toBe(0);
    expect(warnings(log)).toEqual([expect.objectContaining({ reason: 'AccessTokenUnavailable', why: expect.stringContaining('gave no whole answer within 500 ms') })]);
  });

  it('cuts off one that streams without end after 64 KiB, so memory does not grow', async () => {
    const { fake, client, log } = await setup({ requestTimeoutMs: 10_000 });
    fake.setTokenEndpoint({ kind: 'stream' });
    const heapBefore = process.memoryUsage().heapUsed;
    expect(await client.send({ body: fcmMessage('device-1') })).toEqual(unavailable('answered more than 65536 bytes'));
    await expect.poll(() => fake.tokenEndpointStats.open).toBe(0);
    // What the endpoint got to write before the client hung up: its socket buffers, not the stream.
    expect(fake.tokenEndpointStats.bytesSent).toBeLessThan(4 * 1024 * 1024);
    expect(process.memoryUsage().heapUsed - heapBefore).toBeLessThan(32 * 1024 * 1024);
    expect(warnings(log)[0]).toMatchObject({ why: expect.stringContaining('answered more than 65536 bytes') });
  });

  it('gives up on one that never answers at the deadline, and shares that one wait among all the sends', async () => {
    const { fake, client } = await setup();
    fake.setTokenEndpoint({ kind: 'hang' });
    const outcomes = await Promise.all(Array.from({ length: 50 }, (_, n) => client.send({ body: fcmMessage(`device-${n}`) })));
    expect(outcomes.every((outcome) => outcome.kind === 'retry' && outcome.reason === 'AccessTokenUnavailable')).toBe(true);
    expect(fake.tokenEndpointStats.requests).toBe(1);
    await expect.poll(() => fake.tokenEndpointStats.open).toBe(0);
  });

  it('retries after a 500 and logs the status with a bounded excerpt of its body', async () => {
    const { fake, client, log } = await setup();
    fake.setTokenEndpoint({ kind: 'error', status: 500, body: `{"error":"backend_error","details":"${'x'.repeat(10_000)}"}` });
    expect(await client.send({ body: fcmMessage('device-1') })).toEqual(unavailable('answered 500: {"error":"backend_error"'));
    const why = String(warnings(log)[0]?.why);
    expect(why).toContain('answered 500: {"error":"backend_error"');
    expect(why.length).toBeLessThan(400);
  });

  it('fails on a 400 (the service account is refused) and logs the OAuth error', async () => {
    const { fake, client, log } = await setup();
    fake.setTokenEndpoint({ kind: 'error', status: 400, body: '{"error":"invalid_grant","error_description":"Invalid JWT Signature."}' });
    expect(await client.send({ body: fcmMessage('device-1') })).toEqual({
      kind: 'failed',
      reason: 'AccessTokenRefused',
      cause: expect.stringContaining('answered 400: {"error":"invalid_grant","error_description":"Invalid JWT Signature."}'),
    });
    expect(warnings(log)[0]).toMatchObject({ reason: 'AccessTokenRefused', why: expect.stringContaining('400: {"error":"invalid_grant","error_description":"Invalid JWT Signature."}') });
  });

  it('asks a failing endpoint again only after a hold that doubles with each failure, then recovers', async () => {
    const { fake, client, clock } = await setup();
    fake.setTokenEndpoint({ kind: 'error', status: 503, body: 'down' });
    const send = () => client.send({ body: fcmMessage('device-1') });
    expect(await send()).toEqual(unavailable('answered 503: down'));
    for (let n = 0; n < 20; n += 1) expect(await send()).toEqual(unavailable('answered 503: down'));
    expect(fake.tokenEndpointStats.requests).toBe(1);

    clock.advance(1000);
    expect(await send()).toEqual(unavailable('answered 503: down'));
    expect(fake.tokenEndpointStats.requests).toBe(2);
    // Held 2 s now.
    clock.advance(1000);
    await send();
    expect(fake.tokenEndpointStats.requests).toBe(2);
    clock.advance(1000);
    await send();
    expect(fake.tokenEndpointStats.requests).toBe(3);

    fake.setTokenEndpoint({ kind: 'normal' });
    clock.advance(4000);
    expect(await send()).toEqual({ kind: 'delivered' });
    expect(fake.tokenEndpointStats.requests).toBe(4);
  });

  it('logs the same kind of failure once a minute, counting the ones held back', async () => {
    const { fake, client, clock, log } = await setup({ accessToken: undefined });
    fake.setTokenEndpoint({ kind: 'error', status: 503, body: 'down' });
    for (let n = 0; n < 5; n += 1) {
      await client.send({ body: fcmMessage('device-1') });
      clock.advance(20_000);
    }
    // Failures at 0, 20 (held back: hold 1 s over), 40 (held back), 60 s (logged), 80 s (held back).
    expect(warnings(log).map((line) => line.heldBack)).toEqual([0, 2]);
  });
});
