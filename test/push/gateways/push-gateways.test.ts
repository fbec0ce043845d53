import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { gatewayTransportKinds, type GatewayTransportKind } from '../../../src/push/gateways/gateway-transport.ts';
import { appPushSchema, pushGatewaysSchema } from '../../../src/config/push-gateways-schema.ts';
import { loadPushCredentials, type PushApp } from '../../../src/push/gateways/load-push-credentials.ts';
import { PushGateways } from '../../../src/push/gateways/push-gateways.ts';
import type { FakeApns } from '../../support/gateways/fake-apns.ts';
import type { FakeFcm } from '../../support/gateways/fake-fcm.ts';
import { alertTo, fcmMessage, fcmProjectId, present, startFakeApns, startFakeFcm } from '../../support/gateways/gateway-fixtures.ts';
import { RecordingMetrics } from '../../support/gateways/recording-metrics.ts';
import { testPki, writeServiceAccount, type TestPki } from '../../support/gateways/test-pki.ts';
import { memoryLogger } from '../../support/memory-logger.ts';

let pki: TestPki;
let apns: FakeApns;
let fcm: FakeFcm;
let gateways: PushGateways | undefined;

beforeAll(async () => {
  pki = await testPki();
});

afterEach(async () => {
  await gateways?.close();
  gateways = undefined;
  await apns.close();
  await fcm.close();
});

async function startRegistry(options: { logger?: ReturnType<typeof memoryLogger>; metrics?: RecordingMetrics; fcmDelayMs?: number } = {}): Promise<PushGateways> {
  apns = await startFakeApns(pki, { defaultAnswer: { status: 200, delayMs: 5 } });
  fcm = await startFakeFcm(pki);
  if (options.fcmDelayMs !== undefined) fcm.setDefaultAnswer({ status: 200, delayMs: options.fcmDelayMs });
  const endpoints = { production: apns.origin, development: apns.origin };
  const apps: PushApp[] = [
    {
      id: 'token-app',
      push: appPushSchema.parse({
        apns: { topic: pki.apns.topic, token: { keyFile: pki.apns.key.file, keyId: pki.apns.key.keyId, teamId: pki.apns.teamId }, endpoints },
        fcm: { serviceAccountFile: writeServiceAccount(pki, { projectId: fcmProjectId, tokenUri: fcm.tokenUri }), endpoint: fcm.origin },
      }),
    },
    {
      id: 'certificate-app',
      push: appPushSchema.parse({
        apns: { certificates: { production: { certFile: pki.apns.production.certFile, keyFile: pki.apns.production.keyFile } }, endpoints },
      }),
    },
    { id: 'no-push-app' },
  ];
  const settings = pushGatewaysSchema.parse({ caFile: pki.ca.certFile, transport });
  gateways = new PushGateways({
    credentials: loadPushCredentials(apps, settings),
    settings,
    logger: options.logger?.logger,
    metrics: options.metrics,
  });
  return gateways;
}

/** The transport of the describe block running now. */
let transport: GatewayTransportKind = 'herald';

describe.each(gatewayTransportKinds)('PushGateways (%s transport)', (kind) => {
  beforeAll(() => {
    transport = kind;
  });

  it('answers null where an app has no credentials of that kind', async () => {
    const registry = await startRegistry();
    expect(registry.apns('no-push-app', 'production')).toBeNull();
    expect(registry.fcm('no-push-app')).toBeNull();
    expect(registry.apns('unknown-app', 'production')).toBeNull();
    expect(registry.fcm('certificate-app')).toBeNull();
    expect(registry.apns('certificate-app', 'development')).toBeNull();
  });

  it('builds each client once, lazily, and lets token auth serve every profile of both environments', async () => {
    const registry = await startRegistry();
    const production = registry.apns('token-app', 'production');
    expect(production).not.toBeNull();
    expect(registry.apns('token-app', 'production')).toBe(production);
    expect(registry.apns('token-app', 'production', 'any-profile')).toBe(production);
    expect(registry.apns('token-app', 'development')).not.toBe(production);
    expect(registry.apns('token-app', 'development')?.environment).toBe('development');
    expect(registry.fcm('token-app')).toBe(registry.fcm('token-app'));
    expect(registry.apns('certificate-app', 'production', 'unknown-profile')).toBeNull();
  });

  it('delivers through the clients it builds', async () => {
    const registry = await startRegistry();
    expect(await registry.apns('token-app', 'production')?.send(alertTo(pki, 1))).toEqual({ kind: 'delivered' });
    expect(await registry.apns('certificate-app', 'production')?.send(alertTo(pki, 2))).toEqual({ kind: 'delivered' });
    expect(await registry.fcm('token-app')?.send({ body: fcmMessage('device-1') })).toEqual({ kind: 'delivered' });
    expect(apns.log.deliveryCount).toBe(2);
    expect(fcm.log.deliveryCount).toBe(1);
  });

  it('opens as many FCM sessions as a delivery window needs, FCM allowing 100 streams on each (the default cap is 20)', async () => {
    const registry = await startRegistry({ fcmDelayMs: 300 });
    const client = present(registry.fcm('token-app'));
    // Two sessions, the APNs cap, would hold 200 sends at the fake and queue the rest in the process.
    const outcomes = await Promise.all(Array.from({ length: 600 }, (_, n) => client.send({ body: fcmMessage(`device-${n}`) })));
    expect(outcomes.every((outcome) => outcome.kind === 'delivered')).toBe(true);
    const { peakStreams, peakStreamsPerSession } = fcm.streamStats;
    expect(peakStreamsPerSession).toBe(100);
    expect(peakStreams).toBeGreaterThan(400);
    expect(fcm.sessions).toBeGreaterThanOrEqual(5);
    expect(fcm.sessions).toBeLessThanOrEqual(20);
  });

  it('closes every client once, draining deliveries in flight, and refuses to build clients afterwards', async () => {
    const metrics = new RecordingMetrics();
    const registry = await startRegistry({ metrics });
    const client = present(registry.apns('token-app', 'production'));
    const sending = Promise.all(Array.from({ length: 30 }, (_, n) => client.send(alertTo(pki, n))));
    await apns.waitForRequests(30);

    await Promise.all([registry.close(), registry.close()]);
    expect((await sending).every((outcome) => outcome.kind === 'delivered')).toBe(true);
    expect(metrics.sessionsOpen).toBe(0);
    expect(() => registry.apns('token-app', 'production')).toThrow('push gateways are closed');
  });

  it('logs session events with the app and gateway, and no secret', async () => {
    const logs = memoryLogger('debug');
    const registry = await startRegistry({ logger: logs });
    await registry.apns('token-app', 'production')?.send(alertTo(pki, 1));
    await registry.fcm('token-app')?.send({ body: fcmMessage('device-1') });
    apns.goaway();
    await registry.close();

    const text = logs.text();
    expect(logs.lines.some((line) => line.msg === 'gateway session opened' && line.app === 'token-app' && line.gateway === 'apns')).toBe(true);
    expect(logs.lines.some((line) => line.msg === 'gateway session opened' && line.gateway === 'fcm')).toBe(true);
    const authorizations = [...apns.log.requests, ...fcm.log.requests].map((request) => request.headers.authorization ?? '');
    for (const secret of [...authorizations, pki.apns.key.pem, pki.serviceAccount.privateKeyPem]) {
      expect(secret.length).toBeGreaterThan(20);
      expect(text).not.toContain(secret.slice(-40));
    }
  });
});
