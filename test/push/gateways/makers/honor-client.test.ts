import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { honorAppSchema } from '../../../../src/config/makers/honor-schema.ts';
import { CredentialFiles } from '../../../../src/push/gateways/credential-files.ts';
import { delivered } from '../../../../src/push/gateways/delivery.ts';
import { noopGatewayMetrics } from '../../../../src/push/gateways/gateway-metrics.ts';
import { honorMaker } from '../../../../src/push/gateways/makers/honor/honor-maker.ts';
import { MakerClient } from '../../../../src/push/gateways/makers/maker-client.ts';
import { MakerHttp } from '../../../../src/push/gateways/makers/maker-http.ts';
import { buildMakerContent } from '../../../../src/push/payload/maker-content.ts';
import type { FakeHonor } from '../../../support/gateways/fake-honor.ts';
import { honorApps, startFakeHonor } from '../../../support/gateways/gateway-fixtures.ts';
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

const content = buildMakerContent({ data: { alert: 'Hello' }, androidChannel: null, expiresAt: null }, 'honor', honorMaker.overrideFields);

/** The fake Honor and a client of its `_default` app through the maker's own loader, with `secret` as the client secret. */
async function setUp(secret: string = honorApps._default.clientSecret): Promise<{ fake: FakeHonor; client: MakerClient; clock: ManualClock }> {
  const clock = new ManualClock();
  const fake = await startFakeHonor(pki, { clock });
  cleanups.push(() => fake.close());
  const block = honorAppSchema.parse({
    endpoints: { auth: fake.authUrl, send: fake.sendUrl },
    profiles: { _default: { appId: honorApps._default.appId, clientId: honorApps._default.clientId, clientSecretFile: secretFile(pki, 'honor-client-test', secret) } },
  });
  const profiles = honorMaker.load(block, new CredentialFiles({}), 'apps[0].push.honor');
  const http = new MakerHttp({ gateway: 'honor', ca: pki.ca.certPem, connections: 2, requestTimeoutMs: 2000, metrics: noopGatewayMetrics });
  const protocol = profiles.protocol('_default', { http, clock });
  if (protocol === undefined) throw new Error('no _default profile');
  const client = new MakerClient({ gateway: 'honor', profile: '_default', protocol, http, clock });
  cleanups.push(() => client.close());
  return { fake, client, clock };
}

describe('the Honor client against the fake Honor Push', () => {
  it('sends 1001 deliveries of one turn as a request of 1000 tokens and one of 1, on one access token, with the timestamp header, on kept-alive connections', async () => {
    const { fake, client, clock } = await setUp();
    const tokens = Array.from({ length: 1001 }, (_, n) => `token-${n}`);
    const outcomes = await Promise.all(tokens.map((token) => client.send({ token, content, variant: '' })));
    expect(outcomes.every((outcome) => outcome === delivered)).toBe(true);
    expect(fake.requests.map((request) => request.tokens.length).sort((a, b) => a - b)).toEqual([1, 1000]);
    for (const request of fake.requests) {
      expect(request.appId).toBe(honorApps._default.appId);
      expect(request.headers['content-type']).toBe('application/json; charset=UTF-8');
      expect(request.headers.timestamp).toBe(String(clock.now()));
      expect(request.headers.authorization).toMatch(/^Bearer honor-/);
    }
    expect(fake.tokenRequests).toBe(1);
    expect(fake.connections).toBeLessThanOrEqual(3);
  });

  it('splits one answer into an outcome per token: expired removed, failed counted, the rest delivered', async () => {
    const { fake, client } = await setUp();
    fake.expire('gone');
    fake.fail('busy');
    const [gone, busy, fine] = await Promise.all(['gone', 'busy', 'fine'].map((token) => client.send({ token, content, variant: '' })));
    expect(fake.requests).toHaveLength(1);
    expect(gone).toEqual({ kind: 'invalid-token', reason: 'HonorExpireToken', unregistered: true });
    expect(busy).toEqual({ kind: 'failed', reason: 'HonorFailToken' });
    expect(fine).toBe(delivered);
  });

  it('fetches a new access token when Honor answers that it expired, and sends the batch once more', async () => {
    const { fake, client } = await setUp();
    expect(await client.send({ token: 'a', content, variant: '' })).toBe(delivered);
    fake.expireAccessTokens();
    expect(await client.send({ token: 'b', content, variant: '' })).toBe(delivered);
    expect(fake.tokenRequests).toBe(2);
    expect(fake.requestsWith('b').map((request) => request.code)).toEqual(['80200003', '200']);
  });

  it('counts AccessTokenRefused and sends nothing when Honor refuses the client secret', async () => {
    const { fake, client } = await setUp('not-the-secret');
    expect(await client.send({ token: 't', content, variant: '' })).toMatchObject({ kind: 'failed', reason: 'AccessTokenRefused' });
    expect(fake.requests).toEqual([]);
  });

  it('refuses at start-up a profile without its Client ID, and one whose secret file is empty, naming the key and not the content', () => {
    expect(() => honorAppSchema.parse({ profiles: { _default: { appId: '1', clientSecretFile: '/x' } } })).toThrow(/clientId/);
    const block = honorAppSchema.parse({ profiles: { _default: { appId: '1', clientId: 'c', clientSecretFile: secretFile(pki, 'honor-empty', '') } } });
    expect(() => honorMaker.load(block, new CredentialFiles({}), 'apps[0].push.honor')).toThrow(
      /^apps\[0\]\.push\.honor\.profiles\._default\.clientSecretFile: .*honor-empty\.secret must hold the secret alone, on one line$/,
    );
  });

  it('defaults to Honor\'s own endpoints, the App ID in the send URL', () => {
    const block = honorAppSchema.parse({ profiles: { _default: { appId: '104436234', clientId: 'c', clientSecretFile: secretFile(pki, 'honor-defaults', 's') } } });
    expect(block.endpoints).toEqual({ auth: 'https://iam.developer.honor.com/auth/token', send: 'https://push-api.cloud.honor.com/api/v1/{appId}/sendMessage' });
  });
});
