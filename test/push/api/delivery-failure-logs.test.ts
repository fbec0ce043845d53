import { once } from 'node:events';
import { createServer, type AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { StoredObject } from '../../../src/core/ports/object-store.ts';
import { eventually } from '../../support/eventually.ts';
import type { FakeApns } from '../../support/gateways/fake-apns.ts';
import { startFakeApns } from '../../support/gateways/gateway-fixtures.ts';
import { testPki } from '../../support/gateways/test-pki.ts';
import { memoryLogger, type LogLine, type MemoryLogger } from '../../support/memory-logger.ts';
import { testApp, type TestApp } from '../../support/test-herald.ts';
import { androidInstallation, iosInstallation, startPushHerald, uniqueName, type PushHerald } from '../support/push-herald.ts';

/**
 * What an operator sees, at the default log level, when deliveries fail:
 * the main app's APNs endpoint refuses connections and its FCM token
 * endpoint answers 401; a second app's APNs endpoint has a certificate the
 * CA setting does not trust; a third app has no push credentials at all.
 */

let p: PushHerald;
let log: MemoryLogger;
let untrustedApns: FakeApns;
let refusedPort: number;
const untrusted = testApp();
const bare = testApp();
const oauthRefusal = '{"error":"invalid_client","error_description":"The OAuth client was not found."}';

/** A port of 127.0.0.1 nothing listens on: one a server had a moment ago. */
async function closedPort(): Promise<number> {
  const server = createServer();
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

beforeAll(async () => {
  const pki = await testPki();
  untrustedApns = await startFakeApns(pki, { cert: pki.untrustedServer.certPem, key: pki.untrustedServer.keyPem });
  refusedPort = await closedPort();
  const refused = `https://127.0.0.1:${refusedPort}`;
  log = memoryLogger('info');
  p = await startPushHerald({
    logger: log.logger,
    appPush: (fakes) => ({ apns: { ...fakes.appPush.apns, endpoints: { production: refused, development: refused } }, fcm: fakes.appPush.fcm }),
    extraApps: (fakes) => [
      { ...untrusted, push: { apns: { ...fakes.appPush.apns, endpoints: { production: untrustedApns.origin, development: untrustedApns.origin } } } },
      { ...bare, push: {} },
    ],
  });
  p.fakes.fcm.setTokenEndpoint({ kind: 'error', status: 401, body: oauthRefusal });
});

afterAll(async () => {
  await p?.close();
  await untrustedApns?.close();
});

/** The sender's lines about devices it could not deliver. */
const failureLines = (): LogLine[] => log.lines.filter((line) => line.level === 40 && line.role === 'sender' && typeof line.reason === 'string' && 'outcome' in line);

/** Lines in gateway order: the gateways' deliveries settle in either order. */
const byGateway = (lines: LogLine[]): LogLine[] => [...lines].sort((a, b) => String(a.gateway).localeCompare(String(b.gateway)));

/** Seeds the devices into `app` under a fresh channel and pushes to it; answers the settled record. */
async function pushTo(app: TestApp, devices: (channel: string, now: number) => StoredObject[]): Promise<Record<string, unknown>> {
  const channel = uniqueName('failing');
  await p.h.herald.runtime.store.installations.insertMany(app.id, devices(channel, p.clock.now()));
  const res = await p.send({ channels: [channel], data: { alert: 'Will it get there?' } }, { app });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  const path = `/1.1/tables/Notifications/${String(res.body.objectId)}`;
  return eventually(
    `push ${String(res.body.objectId)} of ${app.id} to be done`,
    async () => (await p.h.request('GET', path, { app })).body,
    (record) => record.status === 'done' || record.status === 'Error',
    { timeoutMs: 45_000 },
  );
}

const iosAndAndroid =
  (first: number) =>
  (channel: string, now: number): StoredObject[] => [
    ...[0, 1, 2, 3, 4].map((n) => iosInstallation(first + n, now, { channels: [channel] })),
    ...[0, 1, 2].map((n) => androidInstallation(`${channel}-${n}`, now, { channels: [channel] })),
  ];

async function metric(series: string): Promise<number> {
  const text = await (await fetch(`${p.h.baseUrl}/metrics`)).text();
  const line = text.split('\n').find((candidate) => candidate.startsWith(`${series} `));
  return line === undefined ? 0 : Number(line.slice(series.length + 1));
}

describe('deliveries that fail', () => {
  // Each device is sent four times against a port that refuses, with the connect backoff between: several seconds a push.
  it('log one warn line per app, gateway and reason in the first minute, with the cause, then a line with the count', { timeout: 120_000 }, async () => {
    const app = p.h.app;
    const first = await pushTo(app, iosAndAndroid(70_000));
    expect(first).toMatchObject({ status: 'done', devices: 8, successes: 0, errors: 8, errorReasons: { ConnectFailed: 5, AccessTokenRefused: 3 } });
    const second = await pushTo(app, iosAndAndroid(70_100));
    expect(second).toMatchObject({ status: 'done', errors: 8, errorReasons: { ConnectFailed: 5, AccessTokenRefused: 3 } });

    const mine = () => failureLines().filter((line) => line.app === app.id);
    expect(byGateway(mine())).toEqual([
      expect.objectContaining({ gateway: 'apns', outcome: 'failed', reason: 'ConnectFailed', cause: `connect ECONNREFUSED 127.0.0.1:${refusedPort}` }),
      expect.objectContaining({ gateway: 'fcm', outcome: 'failed', reason: 'AccessTokenRefused', cause: expect.stringContaining(`answered 401: ${oauthRefusal}`) }),
    ]);

    // A minute on, the devices held back are counted in one line each, with the latest cause.
    p.clock.advance(60_000);
    const lines = await eventually('a line with the count of each kind', mine, (seen) => seen.length === 4);
    expect(byGateway(lines.slice(2))).toEqual([
      // The latest cause: the connect itself, or a retry that waited out its deadline for one, naming it.
      expect.objectContaining({ gateway: 'apns', reason: 'ConnectFailed', count: 9, cause: expect.stringContaining(`connect ECONNREFUSED 127.0.0.1:${refusedPort}`) }),
      expect.objectContaining({ gateway: 'fcm', reason: 'AccessTokenRefused', count: 5, cause: expect.stringContaining('answered 401') }),
    ]);

    expect(await metric('herald_push_failures_total{gateway="apns",outcome="failed",reason="ConnectFailed"}')).toBe(10);
    expect(await metric('herald_push_failures_total{gateway="fcm",outcome="failed",reason="AccessTokenRefused"}')).toBe(6);
    expect(await metric('herald_push_deliveries_total{gateway="apns",outcome="failed"}')).toBe(10);
  });

  it('log a gateway whose certificate is not trusted with the TLS error', async () => {
    const record = await pushTo(untrusted, (channel, now) => [0, 1, 2].map((n) => iosInstallation(71_000 + n, now, { channels: [channel] })));
    expect(record).toMatchObject({ status: 'done', devices: 3, errors: 3, errorReasons: { ServerCertificateRejected: 3 } });
    expect(failureLines().filter((line) => line.app === untrusted.id)).toEqual([
      expect.objectContaining({
        gateway: 'apns',
        outcome: 'failed',
        reason: 'ServerCertificateRejected',
        cause: expect.stringMatching(/^(UNABLE_TO_VERIFY_LEAF_SIGNATURE|SELF_SIGNED_CERT_IN_CHAIN|DEPTH_ZERO_SELF_SIGNED_CERT|UNABLE_TO_GET_ISSUER_CERT_LOCALLY): \w/),
      }),
    ]);
    expect(untrustedApns.log.requestCount).toBe(0);
    expect(await metric('herald_push_failures_total{gateway="apns",outcome="failed",reason="ServerCertificateRejected"}')).toBe(3);
  });
});

describe('an app without push credentials', () => {
  it('is warned about at start, by name', () => {
    const warned = log.lines.filter((line) => line.level === 40 && line.app === bare.id && line.msg?.startsWith('app has no push credentials') === true);
    expect(warned).toEqual([expect.objectContaining({ role: 'sender' })]);
    // The apps that have some are listed with their gateways, not warned about.
    expect(log.lines.find((line) => line.app === p.h.app.id && line.msg === 'push gateways of the app')).toMatchObject({ level: 30, gateways: ['apns', 'fcm'] });
  });

  it('gets a record that says its push reaches no configured gateway, each device counted with the reason', async () => {
    const record = await pushTo(bare, (channel, now) => [
      iosInstallation(72_000, now, { channels: [channel] }),
      iosInstallation(72_001, now, { channels: [channel] }),
      androidInstallation(`${channel}-0`, now, { channels: [channel] }),
    ]);
    expect(record).toMatchObject({
      status: 'done',
      devices: 3,
      errors: 3,
      errorReasons: { NoApnsCredentials: 2, NoFcmCredentials: 1 },
      errorMessage: 'no configured gateway for ios: NoApnsCredentials; android: NoFcmCredentials',
    });
    expect(byGateway(failureLines().filter((line) => line.app === bare.id)).map((line) => [line.gateway, line.outcome, line.reason])).toEqual([
      ['apns', 'not-sent', 'NoApnsCredentials'],
      ['fcm', 'not-sent', 'NoFcmCredentials'],
    ]);
  });

  it('gets no such message for a push that can reach a gateway', async () => {
    const record = await pushTo(untrusted, (channel, now) => [androidInstallation(`${channel}-0`, now, { channels: [channel] })]);
    expect(record).toMatchObject({ status: 'done', errorReasons: { NoFcmCredentials: 1 } });
    expect(record.errorMessage).toBeUndefined();
  });
});
