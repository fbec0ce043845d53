import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { gatewayTransportKinds, type GatewayTransportKind } from '../../../src/push/gateways/gateway-transport.ts';
import { ApnsClient } from '../../../src/push/gateways/apns-client.ts';
import type { ApnsClientOptions } from '../../../src/push/gateways/apns-client-options.ts';
import { deliverWithRetry, type RetryOptions } from '../../../src/push/gateways/deliver-with-retry.ts';
import type { FakeApns } from '../../support/gateways/fake-apns.ts';
import { alertTo, apnsTokenAuth, deviceToken, startFakeApns } from '../../support/gateways/gateway-fixtures.ts';
import { RecordingMetrics } from '../../support/gateways/recording-metrics.ts';
import { TcpRelay } from '../../support/gateways/tcp-relay.ts';
import { testPki, type TestPki } from '../../support/gateways/test-pki.ts';

let pki: TestPki;
let fake: FakeApns | undefined;
let clients: ApnsClient[] = [];

beforeAll(async () => {
  pki = await testPki();
});

afterEach(async () => {
  await Promise.all(clients.map((client) => client.close()));
  clients = [];
  await fake?.close();
  fake = undefined;
});

function client(endpoint: string, options: Partial<ApnsClientOptions> = {}): ApnsClient {
  const created = new ApnsClient({ endpoint, ca: pki.ca.certPem, auth: apnsTokenAuth(pki), transport, ...options });
  clients.push(created);
  return created;
}

/** Retries at once, recording each wait it was asked for. */
function immediateRetries(metrics?: RecordingMetrics): RetryOptions & { waits: number[] } {
  const waits: number[] = [];
  return {
    policy: { maxAttempts: 5, baseDelayMs: 1, maxDelayMs: 10, maxRetryAfterMs: 60_000 },
    metrics,
    delay: (ms) => {
      waits.push(ms);
      return Promise.resolve();
    },
    waits,
  };
}

/** The transport of the describe block running now. */
let transport: GatewayTransportKind = 'herald';

describe.each(gatewayTransportKinds)('APNs sessions and streams (%s transport)', (kind) => {
  beforeAll(() => {
    transport = kind;
  });

  it('refuses a gateway whose certificate comes from a CA it was not told to trust', async () => {
    fake = await startFakeApns(pki, { cert: pki.untrustedServer.certPem, key: pki.untrustedServer.keyPem });
    const outcome = await client(fake.origin).send(alertTo(pki, 1));

    // The cause is TLS's own word for it, as an operator would search for it.
    expect(outcome).toEqual({ kind: 'failed', reason: 'ServerCertificateRejected', cause: expect.stringMatching(/^(UNABLE_TO_VERIFY_LEAF_SIGNATURE|SELF_SIGNED_CERT_IN_CHAIN|DEPTH_ZERO_SELF_SIGNED_CERT): /) });
    expect(fake.log.requestCount).toBe(0);
  });

  it('keeps its sessions: a thousand sends use no more connections than the session setting', async () => {
    fake = await startFakeApns(pki);
    const apns = client(fake.origin, { sessions: 2 });
    for (let batch = 0; batch < 10; batch++) {
      const outcomes = await Promise.all(Array.from({ length: 100 }, (_, n) => apns.send(alertTo(pki, batch * 100 + n))));
      expect(outcomes.every((outcome) => outcome.kind === 'delivered')).toBe(true);
    }
    expect(fake.log.deliveryCount).toBe(1000);
    expect(fake.stats.connections).toBeLessThanOrEqual(2);
    expect(apns.sessions).toBe(fake.stats.openSessions);
  });

  it('keeps a lone session open across quiet moments', async () => {
    fake = await startFakeApns(pki);
    const apns = client(fake.origin, { sessions: 1 });
    for (let n = 0; n < 20; n++) expect(await apns.send(alertTo(pki, n))).toEqual({ kind: 'delivered' });
    expect(fake.stats.connections).toBe(1);
    expect(fake.stats.openSessions).toBe(1);
  });

  it('never opens more streams on a session than the gateway allows', async () => {
    fake = await startFakeApns(pki, { maxConcurrentStreams: 5, defaultAnswer: { status: 200, delayMs: 2 } });
    const apns = client(fake.origin, { sessions: 2 });
    const outcomes = await Promise.all(Array.from({ length: 200 }, (_, n) => apns.send(alertTo(pki, n))));

    expect(outcomes.filter((outcome) => outcome.kind === 'delivered')).toHaveLength(200);
    expect(fake.stats.peakStreamsPerSession).toBe(5);
    expect(fake.stats.peakStreams).toBeLessThanOrEqual(10);
    expect(fake.log.requestCount).toBe(200);
  });

  it('gives up a stalled request after the timeout as retry, cancelling its stream', async () => {
    fake = await startFakeApns(pki);
    fake.stall(deviceToken(7));
    const apns = client(fake.origin, { requestTimeoutMs: 200 });

    const started = performance.now();
    expect(await apns.send(alertTo(pki, 7))).toEqual({ kind: 'retry', reason: 'Timeout', cause: 'no answer within 200 ms' });
    expect(performance.now() - started).toBeGreaterThanOrEqual(200);
    expect(apns.inFlight).toBe(0);
    expect(await apns.send(alertTo(pki, 8))).toEqual({ kind: 'delivered' });
  });

  it('drops a session whose gateway stops answering PINGs and retries its streams elsewhere', async () => {
    fake = await startFakeApns(pki);
    const relay = await TcpRelay.start(fake.port);
    try {
      const metrics = new RecordingMetrics();
      const apns = client(relay.origin, { pingIntervalMs: 100, requestTimeoutMs: 20_000, metrics });
      expect(await apns.send(alertTo(pki, 1))).toEqual({ kind: 'delivered' });
      relay.freeze();

      const started = performance.now();
      expect(await apns.send(alertTo(pki, 2))).toEqual({ kind: 'retry', reason: 'ConnectionLost', cause: 'the server did not answer a PING within 100 ms' });
      // The time is the point: unanswered PINGs (every 100 ms) end it, not the 20 s request timeout.
      // 5 s is fifty PING intervals, room for a loaded machine, and still a quarter of the timeout.
      expect(performance.now() - started).toBeLessThan(5000);
      await metrics.untilSessionsOpen(0);
      relay.thaw();
      expect(await apns.send(alertTo(pki, 3))).toEqual({ kind: 'delivered' });
      expect(fake.stats.connections).toBe(2);
    } finally {
      await relay.close();
    }
  });

  it('delivers every notification exactly once when the gateway sends GOAWAY under load, on new sessions', async () => {
    fake = await startFakeApns(pki, { defaultAnswer: { status: 200, delayMs: 1 } });
    // A request that times out is sent again even when the gateway took it, which is right but not what this
    // test is about: on a busy machine 3,000 requests once outlasted the default 10 s and 199 came twice.
    const apns = client(fake.origin, { sessions: 2, requestTimeoutMs: 120_000 });
    const metrics = new RecordingMetrics();
    const retry = immediateRetries(metrics);
    const total = 3000;
    const sending = Promise.all(Array.from({ length: total }, (_, n) => deliverWithRetry(apns, alertTo(pki, n), retry)));

    await fake.waitForRequests(800);
    const sessionsBefore = fake.stats.sessions;
    fake.goaway({ refuseInFlight: true });
    const outcomes = await sending;

    expect(outcomes.filter((outcome) => outcome.kind === 'delivered')).toHaveLength(total);
    expect(fake.log.deliveryCount).toBe(total);
    expect(fake.log.distinctTokens).toBe(total);
    expect(fake.log.duplicates).toBe(0);
    // The streams in flight above the GOAWAY's last stream id were refused and sent again.
    expect(metrics.retries.length).toBeGreaterThan(100);
    expect(metrics.retries.every(({ reason }) => ['StreamRefused', 'GoAway'].includes(reason))).toBe(true);
    expect(fake.stats.sessions).toBeGreaterThan(sessionsBefore);
    const lateSessions = new Set(fake.log.deliveries.slice(-100).map((request) => request.sessionId));
    expect([...lateSessions].every((id) => id > sessionsBefore)).toBe(true);
  });

  it('moves to a new session when the gateway sends GOAWAY but keeps the connection open', async () => {
    fake = await startFakeApns(pki);
    const apns = client(fake.origin, { sessions: 1 });
    await apns.send(alertTo(pki, 1));
    fake.goaway({ keepConnection: true });

    const retry = { ...immediateRetries(), policy: { maxAttempts: 100, baseDelayMs: 20, maxDelayMs: 20, maxRetryAfterMs: 0 } };
    expect(await deliverWithRetry(apns, alertTo(pki, 2), retry)).toEqual({ kind: 'delivered' });
    expect(fake.stats.sessions).toBe(2);
    expect(fake.log.countOf(deviceToken(2))).toBe(1);
  });

  it('closes even when its GOAWAY crosses the gateway\'s and the gateway keeps the connection open', async () => {
    fake = await startFakeApns(pki);
    const metrics = new RecordingMetrics();
    const apns = client(fake.origin, { metrics });
    await apns.send(alertTo(pki, 1));
    fake.goaway({ keepConnection: true });
    await apns.close();

    expect(metrics.sessionsOpen).toBe(0);
    expect(apns.sessions).toBe(0);
  });

  it('retries 500 and 503 answers and delivers once', async () => {
    fake = await startFakeApns(pki);
    fake.respondTo(deviceToken(9), [
      { status: 500, reason: 'InternalServerError' },
      { status: 503, reason: 'ServiceUnavailable' },
    ]);
    const metrics = new RecordingMetrics();
    const outcome = await deliverWithRetry(client(fake.origin), alertTo(pki, 9), immediateRetries(metrics));

    expect(outcome).toEqual({ kind: 'delivered' });
    expect(fake.log.requestsTo(deviceToken(9)).map((request) => request.status)).toEqual([500, 503, 200]);
    expect(fake.log.countOf(deviceToken(9))).toBe(1);
    expect(metrics.retries).toEqual([
      { gateway: 'apns', reason: 'InternalServerError' },
      { gateway: 'apns', reason: 'ServiceUnavailable' },
    ]);
  });

  it('waits as long as a 429 Retry-After asks, then delivers once', async () => {
    fake = await startFakeApns(pki);
    fake.respondTo(deviceToken(10), [{ status: 429, reason: 'TooManyRequests', retryAfter: 3 }]);
    const retry = immediateRetries();
    const outcome = await deliverWithRetry(client(fake.origin), alertTo(pki, 10), retry);

    expect(outcome).toEqual({ kind: 'delivered' });
    expect(retry.waits).toEqual([3000]);
    expect(fake.log.countOf(deviceToken(10))).toBe(1);
  });

  it('reports latency per answer, sessions and streams in flight to its metrics', async () => {
    fake = await startFakeApns(pki);
    fake.stall(deviceToken(11));
    const metrics = new RecordingMetrics();
    const apns = client(fake.origin, { metrics, requestTimeoutMs: 300 });
    await Promise.all(Array.from({ length: 20 }, (_, n) => apns.send(alertTo(pki, 100 + n))));
    const stalled = apns.send(alertTo(pki, 11));
    await fake.waitForRequests(21);

    expect(metrics.streams()).toBe(1);
    expect(metrics.sessionsOpen).toBeGreaterThanOrEqual(1);
    expect(await stalled).toEqual({ kind: 'retry', reason: 'Timeout', cause: 'no answer within 300 ms' });
    expect(metrics.latencies).toHaveLength(20);
    expect(metrics.latencies.every(({ gateway, seconds }) => gateway === 'apns' && seconds > 0 && seconds < 5)).toBe(true);
    await apns.close();
    expect(metrics.sessionsOpen).toBe(0);
    expect(metrics.trackedClients).toBe(0);
  });

  it('answers ClientClosed after close and drains what was in flight first', async () => {
    fake = await startFakeApns(pki, { defaultAnswer: { status: 200, delayMs: 20 } });
    const apns = client(fake.origin);
    const inFlight = Promise.all(Array.from({ length: 50 }, (_, n) => apns.send(alertTo(pki, n))));
    await fake.waitForRequests(50);
    const closing = apns.close();

    expect(await apns.send(alertTo(pki, 99))).toEqual({ kind: 'retry', reason: 'ClientClosed' });
    expect((await inFlight).every((outcome) => outcome.kind === 'delivered')).toBe(true);
    await closing;
    await apns.close();
    expect(apns.sessions).toBe(0);
  });

  it('warms up: opens one session before any send, which the sends then use', async () => {
    fake = await startFakeApns(pki);
    const apns = client(fake.origin, { sessions: 2 });
    await apns.warm();
    expect(apns.sessions).toBe(1);
    expect(fake.stats.openSessions).toBe(1);
    expect(fake.log.requestCount).toBe(0);

    await apns.warm();
    for (let n = 0; n < 5; n++) expect(await apns.send(alertTo(pki, n))).toEqual({ kind: 'delivered' });
    expect(fake.stats.connections).toBe(1);
  });

  it('warms up only once the connect is through, however long it takes', async () => {
    fake = await startFakeApns(pki);
    const relay = await TcpRelay.start(fake.port);
    try {
      relay.hold();
      const apns = client(relay.origin, { requestTimeoutMs: 10_000 });
      let warmed = false;
      const warming = apns.warm().then(() => (warmed = true));
      await expect.poll(() => relay.connections.held, { timeout: 5000 }).toBe(1);
      await new Promise((resolve) => setTimeout(resolve, 200));
      expect(warmed).toBe(false);
      expect(apns.sessions).toBe(0);

      relay.release();
      await warming;
      expect(apns.sessions).toBe(1);
      expect(await apns.send(alertTo(pki, 1))).toEqual({ kind: 'delivered' });
      expect(relay.connections.accepted).toBe(1);
    } finally {
      await relay.close();
    }
  });

  it('warms up without rejecting or waiting long when the gateway cannot be reached; the sends meet the failure', async () => {
    fake = await startFakeApns(pki);
    const origin = fake.origin;
    await fake.close();
    fake = undefined;
    const apns = client(origin, { requestTimeoutMs: 10_000 });
    const started = performance.now();
    await apns.warm();
    expect(performance.now() - started).toBeLessThan(5000);
    expect(apns.sessions).toBe(0);
    expect(await apns.send(alertTo(pki, 1))).toMatchObject({ kind: 'retry', reason: 'ConnectFailed' });
  });
});
