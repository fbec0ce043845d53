import { once } from 'node:events';
import { createServer, type AddressInfo } from 'node:net';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { hmsAppSchema } from '../../../../src/config/makers/hms-schema.ts';
import { CredentialFiles } from '../../../../src/push/gateways/credential-files.ts';
import { delivered } from '../../../../src/push/gateways/delivery.ts';
import { noopGatewayMetrics } from '../../../../src/push/gateways/gateway-metrics.ts';
import { hmsMaker } from '../../../../src/push/gateways/makers/hms/hms-maker.ts';
import { MakerClient } from '../../../../src/push/gateways/makers/maker-client.ts';
import { MakerHttp } from '../../../../src/push/gateways/makers/maker-http.ts';
import { buildMakerContent } from '../../../../src/push/payload/maker-content.ts';
import { hmsApps, startFakeHms } from '../../../support/gateways/gateway-fixtures.ts';
import type { FakeHms } from '../../../support/gateways/fake-hms.ts';
import { testPki, type TestPki } from '../../../support/gateways/test-pki.ts';
import { ManualClock } from '../../../support/manual-clock.ts';
import { secretFile } from '../../../support/push-gateways.ts';

let pki: TestPki;
beforeAll(async () => {
  pki = await testPki();
});

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

const content = buildMakerContent({ data: { alert: 'Hello' }, androidChannel: null, expiresAt: null }, 'hms', hmsMaker.overrideFields);

/** The fake HMS and a client of its `_default` app through the maker's own loader, with `secret` as the client secret. */
async function setUp(secret: string = hmsApps._default.clientSecret, authUrl?: string): Promise<{ fake: FakeHms; client: MakerClient }> {
  const clock = new ManualClock();
  const fake = await startFakeHms(pki, { clock });
  cleanups.push(() => fake.close());
  const block = hmsAppSchema.parse({
    endpoints: { auth: authUrl ?? fake.authUrl, send: fake.sendUrl },
    profiles: { _default: { appId: hmsApps._default.appId, clientSecretFile: secretFile(pki, 'hms-client-test', secret) } },
  });
  const profiles = hmsMaker.load(block, new CredentialFiles({}), 'apps[0].push.hms');
  const http = new MakerHttp({ gateway: 'hms', ca: pki.ca.certPem, connections: 2, requestTimeoutMs: 2000, metrics: noopGatewayMetrics });
  const protocol = profiles.protocol('_default', { http, clock });
  if (protocol === undefined) throw new Error('no _default profile');
  const client = new MakerClient({ gateway: 'hms', profile: '_default', protocol, http, clock });
  cleanups.push(() => client.close());
  return { fake, client };
}

describe('the HMS client against the fake Push Kit', () => {
  it('sends 1001 deliveries of one turn as a request of 1000 tokens and one of 1, on one access token and kept-alive connections', async () => {
    const { fake, client } = await setUp();
    const tokens = Array.from({ length: 1001 }, (_, n) => `token-${n}`);
    const outcomes = await Promise.all(tokens.map((token) => client.send({ token, content, variant: '' })));
    expect(outcomes.every((outcome) => outcome === delivered)).toBe(true);
    expect(fake.requests.map((request) => request.tokens.length).sort((a, b) => a - b)).toEqual([1, 1000]);
    expect(fake.requests[0]?.headers['content-type']).toBe('application/json;charset=utf-8');
    expect(fake.tokenRequests).toBe(1);
    expect(fake.connections).toBeLessThanOrEqual(3);
  });

  it('warms up with the access token before any send, which the sends then use', async () => {
    const { fake, client } = await setUp();
    await client.warm();
    expect(fake.tokenRequests).toBe(1);
    expect(fake.requests).toHaveLength(0);
    await client.warm();
    expect(await client.send({ token: 'token-1', content, variant: '' })).toBe(delivered);
    expect(fake.tokenRequests).toBe(1);
  });

  it('counts AccessTokenUnavailable with the connection\'s error when the auth endpoint refuses connections', async () => {
    const server = createServer();
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    const { port } = server.address() as AddressInfo;
    await new Promise((resolve) => server.close(resolve));
    const { fake, client } = await setUp(hmsApps._default.clientSecret, `https://127.0.0.1:${port}/oauth2/v3/token`);
    expect(await client.send({ token: 't', content, variant: '' })).toEqual({
      kind: 'retry',
      reason: 'AccessTokenUnavailable',
      cause: `auth endpoint https://127.0.0.1:${port}/oauth2/v3/token gave no answer (ConnectFailed: connect ECONNREFUSED 127.0.0.1:${port})`,
      // A batch answered retry as a whole comes back together.
      retryAfterMs: 1000,
    });
    expect(fake.requests).toEqual([]);
  });

  it('counts AccessTokenRefused and sends nothing when HMS refuses the client secret', async () => {
    const { fake, client } = await setUp('not-the-secret');
    expect(await client.send({ token: 't', content, variant: '' })).toEqual({ kind: 'failed', reason: 'AccessTokenRefused', cause: expect.stringMatching(/answered 400: .*1101/) });
    expect(fake.requests).toEqual([]);
  });

  it('refuses at start-up a profile whose secret file is empty, naming the key and not the content', () => {
    const block = hmsAppSchema.parse({ profiles: { _default: { appId: '1', clientSecretFile: secretFile(pki, 'hms-empty', '') } } });
    expect(() => hmsMaker.load(block, new CredentialFiles({}), 'apps[0].push.hms')).toThrow(/^apps\[0\]\.push\.hms\.profiles\._default\.clientSecretFile: .*hms-empty\.secret must hold the secret alone, on one line$/);
  });
});
