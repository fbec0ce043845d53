import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { xiaomiAppSchema } from '../../../../src/config/makers/xiaomi-schema.ts';
import { CredentialFiles } from '../../../../src/push/gateways/credential-files.ts';
import { delivered } from '../../../../src/push/gateways/delivery.ts';
import { noopGatewayMetrics } from '../../../../src/push/gateways/gateway-metrics.ts';
import { MakerClient } from '../../../../src/push/gateways/makers/maker-client.ts';
import { MakerHttp } from '../../../../src/push/gateways/makers/maker-http.ts';
import { xiaomiMaker } from '../../../../src/push/gateways/makers/xiaomi/xiaomi-maker.ts';
import { buildMakerContent } from '../../../../src/push/payload/maker-content.ts';
import { startFakeXiaomi, xiaomiApps } from '../../../support/gateways/gateway-fixtures.ts';
import type { FakeXiaomi } from '../../../support/gateways/fake-xiaomi.ts';
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

function contentOf(data: Record<string, unknown>, expiresAt: number | null = null) {
  return buildMakerContent({ data, androidChannel: null, expiresAt }, 'xiaomi', xiaomiMaker.overrideFields);
}

const content = contentOf({ alert: 'Hello', ref: 7 });
const quotaSpent = { kind: 'failed', reason: 'DailyQuotaExceeded' };
const commaRefused = { kind: 'invalid-token', reason: 'MiBadRegId', unregistered: false, cause: 'a registrationId holding a comma is never sent' };

/** The cause an error answer of Xiaomi's gives an outcome: its status and the start of its body. */
function answered(code: number): unknown {
  return expect.stringMatching(new RegExp(`^answered 200: \\{"result":"error","code":${code},"reason":`));
}

/** The fake Mi Push and a client of its `_default` app through the maker's own loader, with `secret` as the AppSecret. */
async function setUp(secret: string = xiaomiApps._default.appSecret): Promise<{ fake: FakeXiaomi; client: MakerClient; clock: ManualClock }> {
  const clock = new ManualClock(Date.parse('2026-03-02T15:00:00Z'));
  const fake = await startFakeXiaomi(pki, { clock });
  cleanups.push(() => fake.close());
  const block = xiaomiAppSchema.parse({
    endpoints: { send: fake.sendUrl, sendGlobal: fake.globalSendUrl },
    profiles: { _default: { appSecretFile: secretFile(pki, 'xiaomi-client-test', secret), packageName: xiaomiApps._default.packageName } },
  });
  const profiles = xiaomiMaker.load(block, new CredentialFiles({}), 'apps[0].push.xiaomi');
  const http = new MakerHttp({ gateway: 'xiaomi', ca: pki.ca.certPem, connections: 2, requestTimeoutMs: 2000, metrics: noopGatewayMetrics });
  const protocol = profiles.protocol('_default', { http, clock });
  if (protocol === undefined) throw new Error('no _default profile');
  const client = new MakerClient({ gateway: 'xiaomi', profile: '_default', protocol, http, clock });
  cleanups.push(() => client.close());
  return { fake, client, clock };
}

describe('the Xiaomi client against the fake Mi Push', () => {
  it('sends 1001 deliveries of one turn as a request of 1000 regIds and one of 1, with the AppSecret, on kept-alive connections', async () => {
    const { fake, client } = await setUp();
    const regIds = Array.from({ length: 1001 }, (_, n) => `regid-${n}`);
    const outcomes = await Promise.all(regIds.map((token) => client.send({ token, content, variant: '' })));
    expect(outcomes.every((outcome) => outcome === delivered)).toBe(true);
    expect(fake.requests.map((request) => request.regIds.length).sort((a, b) => a - b)).toEqual([1, 1000]);
    for (const request of fake.requests) {
      expect(request.region).toBe('china');
      expect(request.headers.authorization).toBe(`key=${xiaomiApps._default.appSecret}`);
      expect(request.headers['content-type']).toBe('application/x-www-form-urlencoded;charset=UTF-8');
      expect(request.form).toMatchObject({ payload: '{"alert":"Hello","ref":7}', restricted_package_name: xiaomiApps._default.packageName, pass_through: '0' });
    }
    for (const regId of regIds) expect(fake.log.countOf(regId)).toBe(1);
    expect(fake.connections).toBeLessThanOrEqual(3);
  });

  it('sends mi-intl devices (the global variant) through the global service', async () => {
    const { fake, client } = await setUp();
    const [china, global] = await Promise.all([client.send({ token: 'cn-1', content, variant: '' }), client.send({ token: 'intl-1', content, variant: 'global' })]);
    expect([china, global]).toEqual([delivered, delivered]);
    expect(fake.requestsWith('cn-1').map((request) => request.region)).toEqual(['china']);
    expect(fake.requestsWith('intl-1').map((request) => request.region)).toEqual(['global']);
  });

  it('fails every device of a wrong AppSecret with Mi21301 and removes none', async () => {
    const { fake, client } = await setUp('not-the-secret');
    const outcomes = await Promise.all(['r1', 'r2'].map((token) => client.send({ token, content, variant: '' })));
    expect(outcomes).toEqual([
      { kind: 'failed', reason: 'Mi21301', cause: answered(21301) },
      { kind: 'failed', reason: 'Mi21301', cause: answered(21301) },
    ]);
    expect(fake.requests.map((request) => request.code)).toEqual(['21301']);
    expect(fake.log.countOf('r1')).toBe(0);
  });

  it('removes the regIds Xiaomi lists as bad beside accepted ones; a lone refused regId only once the profile has delivered', async () => {
    const { fake, client } = await setUp();
    fake.invalidate('gone-1', 'gone-2', 'lone');
    const outcomes = await Promise.all(['ok-1', 'gone-1', 'gone-2'].map((token) => client.send({ token, content, variant: '' })));
    expect(outcomes).toEqual([delivered, { kind: 'invalid-token', reason: 'MiBadRegId', unregistered: true }, { kind: 'invalid-token', reason: 'MiBadRegId', unregistered: true }]);
    expect(fake.requests.at(-1)?.code).toBe('0');
    // Its endpoint delivered for this profile: a lone regId refused (20301) speaks of that regId.
    expect(await client.send({ token: 'lone', content, variant: '' })).toEqual({ kind: 'invalid-token', reason: 'Mi20301', unregistered: true });
    // The global endpoint has not delivered for it yet: the same answer there removes nothing.
    expect(await client.send({ token: 'lone', content: contentOf({ alert: 'again' }), variant: 'global' })).toEqual({
      kind: 'invalid-token',
      reason: 'Mi20301',
      unregistered: false,
      cause: answered(20301),
    });
  });

  it('keeps a lone refused regId of a profile that has not delivered yet', async () => {
    const { fake, client } = await setUp();
    fake.invalidate('first');
    expect(await client.send({ token: 'first', content, variant: '' })).toEqual({ kind: 'invalid-token', reason: 'Mi20301', unregistered: false, cause: answered(20301) });
  });

  it('stops sending for the day once Xiaomi answers that the quota is spent, and sends again after midnight in China', async () => {
    const { fake, client, clock } = await setUp();
    fake.limitDailyQuota(xiaomiApps._default.appSecret, 1);
    expect(await Promise.all(['q1', 'q2'].map((token) => client.send({ token, content, variant: '' })))).toEqual([quotaSpent, quotaSpent]);
    expect(fake.requests.map((request) => request.code)).toEqual(['10034']);
    expect(await client.send({ token: 'q3', content: contentOf({ alert: 'later' }), variant: '' })).toEqual(quotaSpent);
    expect(fake.requests).toHaveLength(1);
    // 15:00 UTC is 23:00 in China: an hour later a new day starts, for Xiaomi and for the client.
    clock.advance(3_600_000);
    expect(await client.send({ token: 'q4', content: contentOf({ alert: 'next day' }), variant: '' })).toEqual(delivered);
  });

  it('retries what a rate limit or a server error answers, after the Retry-After given', async () => {
    const { fake, client } = await setUp();
    fake.throttleNext(1);
    expect(await client.send({ token: 'r1', content, variant: '' })).toEqual({ kind: 'retry', reason: 'Mi10027', retryAfterMs: 1000, cause: answered(10027) });
    fake.respondNext({ status: 503, body: '', retryAfter: 7 });
    expect(await client.send({ token: 'r1', content: contentOf({ alert: 'again' }), variant: '' })).toEqual({ kind: 'retry', reason: 'MiServerError', retryAfterMs: 7000, cause: 'answered 503' });
    expect(await client.send({ token: 'r1', content: contentOf({ alert: 'third' }), variant: '' })).toEqual(delivered);
    expect(fake.log.countOf('r1')).toBe(1);
  });

  it('sends the TTL left when the batch leaves, in milliseconds', async () => {
    const { fake, client, clock } = await setUp();
    expect(await client.send({ token: 'ttl', content: contentOf({ alert: 'A' }, clock.now() + 90_500), variant: '' })).toEqual(delivered);
    expect(fake.requestsWith('ttl')[0]?.form.time_to_live).toBe('91000');
  });

  it('does not send a payload over 4096 bytes', async () => {
    const { fake, client } = await setUp();
    expect(await client.send({ token: 'big', content: contentOf({ alert: 'A', note: 'x'.repeat(4096) }), variant: '' })).toEqual({ kind: 'failed', reason: 'PayloadTooLarge' });
    expect(fake.requests).toEqual([]);
  });

  it('never sends a registrationId holding a comma, which Xiaomi would read as several devices', async () => {
    const { fake, client } = await setUp();
    const outcomes = await Promise.all(['victim-1,victim-2', 'fine'].map((token) => client.send({ token, content, variant: '' })));
    expect(outcomes).toEqual([commaRefused, delivered]);
    expect(fake.requests.map((request) => request.regIds)).toEqual([['fine']]);
    expect(fake.log.countOf('victim-1')).toBe(0);
    expect(await client.send({ token: 'only,commas', content: contentOf({ alert: 'B' }), variant: '' })).toEqual(commaRefused);
    expect(fake.requests).toHaveLength(1);
  });

  it('refuses at start-up a profile whose secret file is empty, naming the key and not the content', () => {
    const block = xiaomiAppSchema.parse({ profiles: { _default: { appSecretFile: secretFile(pki, 'xiaomi-empty', ''), packageName: 'com.example.shop' } } });
    expect(() => xiaomiMaker.load(block, new CredentialFiles({}), 'apps[0].push.xiaomi')).toThrow(
      /^apps\[0\]\.push\.xiaomi\.profiles\._default\.appSecretFile: .*xiaomi-empty\.secret must hold the secret alone, on one line$/,
    );
  });

  it('refuses a block without a package or with an http endpoint', () => {
    expect(() => xiaomiAppSchema.parse({ profiles: { _default: { appSecretFile: '/s' } } })).toThrow(/packageName/);
    expect(() => xiaomiAppSchema.parse({ endpoints: { send: 'http://proxy/v3/message/regid' }, profiles: { _default: { appSecretFile: '/s', packageName: 'com.a.b' } } })).toThrow(/https/);
    expect(xiaomiAppSchema.parse({ profiles: { _default: { appSecretFile: '/s', packageName: 'com.a.b' } } }).endpoints).toEqual({
      send: 'https://api.xmpush.xiaomi.com/v3/message/regid',
      sendGlobal: 'https://api.xmpush.global.xiaomi.com/v3/message/regid',
    });
  });
});
