import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { meizuAppSchema } from '../../../../src/config/makers/meizu-schema.ts';
import { CredentialFiles } from '../../../../src/push/gateways/credential-files.ts';
import { delivered } from '../../../../src/push/gateways/delivery.ts';
import { noopGatewayMetrics } from '../../../../src/push/gateways/gateway-metrics.ts';
import { MakerClient } from '../../../../src/push/gateways/makers/maker-client.ts';
import { MakerHttp } from '../../../../src/push/gateways/makers/maker-http.ts';
import { meizuMaker } from '../../../../src/push/gateways/makers/meizu/meizu-maker.ts';
import { meizuSign } from '../../../../src/push/gateways/makers/meizu/meizu-sign.ts';
import { buildMakerContent } from '../../../../src/push/payload/maker-content.ts';
import type { FakeMeizu } from '../../../support/gateways/fake-meizu.ts';
import { meizuApps, startFakeMeizu } from '../../../support/gateways/gateway-fixtures.ts';
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

const content = buildMakerContent({ data: { alert: 'Hello', ref: 'a&b=c' }, androidChannel: null, expiresAt: null }, 'meizu', meizuMaker.overrideFields);

/** The fake Meizu and a client of its `_default` app through the maker's own loader, with `secret` as the App Secret. */
async function setUp(secret: string = meizuApps._default.appSecret): Promise<{ fake: FakeMeizu; client: MakerClient }> {
  const clock = new ManualClock();
  const fake = await startFakeMeizu(pki, { clock });
  cleanups.push(() => fake.close());
  const block = meizuAppSchema.parse({
    endpoints: { send: fake.sendUrl },
    profiles: { _default: { appId: meizuApps._default.appId, appSecretFile: secretFile(pki, 'meizu-client-test', secret) } },
  });
  const profiles = meizuMaker.load(block, new CredentialFiles({}), 'apps[0].push.meizu');
  const http = new MakerHttp({ gateway: 'meizu', ca: pki.ca.certPem, connections: 2, requestTimeoutMs: 2000, metrics: noopGatewayMetrics });
  const protocol = profiles.protocol('_default', { http, clock });
  if (protocol === undefined) throw new Error('no _default profile');
  const client = new MakerClient({ gateway: 'meizu', profile: '_default', protocol, http, clock });
  cleanups.push(() => client.close());
  return { fake, client };
}

describe('the Meizu client against the fake Flyme Push', () => {
  it('sends 201 deliveries of one turn as signed forms of 100, 100 and 1 pushIds, without an access token, on kept-alive connections', async () => {
    const { fake, client } = await setUp();
    const pushIds = Array.from({ length: 201 }, (_, n) => `pushid-${n}`);
    const outcomes = await Promise.all(pushIds.map((token) => client.send({ token, content, variant: '' })));
    expect(outcomes.every((outcome) => outcome === delivered)).toBe(true);
    expect(fake.requests.map((request) => request.pushIds.length).sort((a, b) => a - b)).toEqual([1, 100, 100]);
    for (const request of fake.requests) {
      expect(request.code).toBe('200');
      expect(request.headers['content-type']).toBe('application/x-www-form-urlencoded;charset=UTF-8');
      expect(Object.keys(request.params).sort()).toEqual(['appId', 'messageJson', 'pushIds', 'sign']);
      expect(request.params.sign).toBe(meizuSign(request.params, meizuApps._default.appSecret));
      expect(request.message?.clickTypeInfo.parameters).toEqual({ ref: 'a&b=c' });
    }
    expect(client.tokenRequests).toBe(0);
    expect(fake.connections).toBeLessThanOrEqual(3);
  });

  it('splits one answer into an outcome per pushId', async () => {
    const { fake, client } = await setUp();
    fake.mark('110002', 'gone');
    fake.mark('110010', 'off');
    fake.mark('520', 'folded');
    const [gone, off, folded, fine] = await Promise.all(['gone', 'off', 'folded', 'fine'].map((token) => client.send({ token, content, variant: '' })));
    expect(fake.requests).toHaveLength(1);
    expect(gone).toEqual({ kind: 'invalid-token', reason: 'Meizu110002', unregistered: true });
    expect(off).toEqual({ kind: 'failed', reason: 'MeizuSwitchedOff' });
    expect(folded).toEqual({ kind: 'failed', reason: 'Meizu520' });
    expect(fine).toBe(delivered);
  });

  it('never sends a registrationId with a comma, which would add pushIds, and sends the rest', async () => {
    const { fake, client } = await setUp();
    const [bad, good] = await Promise.all(['victim1,victim2', 'good'].map((token) => client.send({ token, content, variant: '' })));
    expect(bad).toEqual({ kind: 'failed', reason: 'MeizuBadPushId' });
    expect(good).toBe(delivered);
    expect(fake.requests.map((request) => request.pushIds)).toEqual([['good']]);
  });

  it('fails every pushId Meizu1006 and removes nothing when the App Secret is wrong: Meizu checks the signature', async () => {
    const { fake, client } = await setUp('not-the-secret');
    expect(await client.send({ token: 'p', content, variant: '' })).toEqual({ kind: 'failed', reason: 'Meizu1006' });
    expect(fake.requests.map((request) => request.code)).toEqual(['1006']);
  });

  it('refuses at start-up a profile whose secret file is empty, naming the key and not the content, and an App ID that is not a number', () => {
    const block = meizuAppSchema.parse({ profiles: { _default: { appId: '1', appSecretFile: secretFile(pki, 'meizu-empty', '') } } });
    expect(() => meizuMaker.load(block, new CredentialFiles({}), 'apps[0].push.meizu')).toThrow(
      /^apps\[0\]\.push\.meizu\.profiles\._default\.appSecretFile: .*meizu-empty\.secret must hold the secret alone, on one line$/,
    );
    expect(() => meizuAppSchema.parse({ profiles: { _default: { appId: 'abc', appSecretFile: '/x' } } })).toThrow(/App ID/);
    expect(meizuAppSchema.parse({ profiles: { _default: { appId: '1', appSecretFile: '/x' } } }).endpoints.send).toBe(
      'https://server-api-push.meizu.com/garcia/api/server/push/varnished/pushByPushId',
    );
  });
});
