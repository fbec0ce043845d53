import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { oppoAppSchema } from '../../../../src/config/makers/oppo-schema.ts';
import { CredentialFiles } from '../../../../src/push/gateways/credential-files.ts';
import { delivered } from '../../../../src/push/gateways/delivery.ts';
import { noopGatewayMetrics } from '../../../../src/push/gateways/gateway-metrics.ts';
import { MakerClient } from '../../../../src/push/gateways/makers/maker-client.ts';
import { MakerHttp } from '../../../../src/push/gateways/makers/maker-http.ts';
import { oppoMaker } from '../../../../src/push/gateways/makers/oppo/oppo-maker.ts';
import { buildMakerContent } from '../../../../src/push/payload/maker-content.ts';
import { oppoApps, startFakeOppo } from '../../../support/gateways/gateway-fixtures.ts';
import type { FakeOppo, FakeOppoOptions } from '../../../support/gateways/fake-oppo.ts';
import { TcpRelay } from '../../../support/gateways/tcp-relay.ts';
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

const content = buildMakerContent({ data: { alert: 'Hello', ref: 1 }, androidChannel: null, expiresAt: null }, 'oppo', oppoMaker.overrideFields);

interface SetUp {
  fake: FakeOppo;
  client: MakerClient;
  clock: ManualClock;
}

/** The fake OPPO and a client of its `_default` app through the maker's own loader, with `secret` as the MasterSecret. */
async function setUp(options: { secret?: string; fake?: Partial<FakeOppoOptions>; clientClock?: ManualClock; authUrl?: (fake: FakeOppo) => Promise<string> } = {}): Promise<SetUp> {
  const clock = new ManualClock();
  const fake = await startFakeOppo(pki, { clock, ...options.fake });
  cleanups.push(() => fake.close());
  const block = oppoAppSchema.parse({
    endpoints: { auth: (await options.authUrl?.(fake)) ?? fake.authUrl, send: fake.sendUrl },
    profiles: { _default: { appKey: oppoApps._default.appKey, masterSecretFile: secretFile(pki, 'oppo-client-test', options.secret ?? oppoApps._default.masterSecret) } },
  });
  const profiles = oppoMaker.load(block, new CredentialFiles({}), 'apps[0].push.oppo');
  const http = new MakerHttp({ gateway: 'oppo', ca: pki.ca.certPem, connections: 2, requestTimeoutMs: 1000, metrics: noopGatewayMetrics });
  const clientClock = options.clientClock ?? clock;
  const protocol = profiles.protocol('_default', { http, clock: clientClock });
  if (protocol === undefined) throw new Error('no _default profile');
  const client = new MakerClient({ gateway: 'oppo', profile: '_default', protocol, http, clock: clientClock });
  cleanups.push(() => client.close());
  return { fake, client, clock };
}

describe('the OPPO client against the fake OPPO Push', () => {
  it('sends 1001 deliveries of one turn as unicast_batch requests of 1000 messages and 1, on one auth token and kept-alive connections', async () => {
    const { fake, client } = await setUp();
    const tokens = Array.from({ length: 1001 }, (_, n) => `CN_${n.toString(16).padStart(32, '0')}`);
    const outcomes = await Promise.all(tokens.map((token) => client.send({ token, content, variant: '' })));
    expect(new Set(outcomes)).toEqual(new Set([delivered]));
    expect(fake.requests.map((request) => request.tokens.length).sort((a, b) => a - b)).toEqual([1, 1000]);
    expect(fake.requests[0]?.headers['content-type']).toBe('application/x-www-form-urlencoded;charset=UTF-8');
    expect(fake.requests[0]?.messages?.[0]?.notification).toMatchObject({ title: 'Hello', content: 'Hello', action_parameters: '{"ref":"1"}' });
    expect(fake.tokenRequests).toBe(1);
    expect(fake.connections).toBeLessThanOrEqual(3);
    for (const token of tokens) expect(fake.log.countOf(token)).toBe(1);
  });

  it('counts AccessTokenRefused and sends nothing when OPPO refuses the signature of another MasterSecret', async () => {
    const { fake, client } = await setUp({ secret: 'not-the-master-secret' });
    expect(await client.send({ token: 'CN_r', content, variant: '' })).toMatchObject({ kind: 'failed', reason: 'AccessTokenRefused' });
    expect(fake.requests).toEqual([]);
    expect(fake.tokenRequests).toBe(0);
  });

  it('counts AccessTokenRefused when its clock is more than ten minutes off OPPO\'s (code 19)', async () => {
    const skewed = new ManualClock();
    skewed.advance(11 * 60_000);
    const { fake, client } = await setUp({ clientClock: skewed });
    expect(await client.send({ token: 'CN_r', content, variant: '' })).toMatchObject({ kind: 'failed', reason: 'AccessTokenRefused' });
    expect(fake.tokenRequests).toBe(0);
  });

  it('gets a new auth token when OPPO answers 11 and sends the batch once more', async () => {
    const { fake, client } = await setUp();
    expect(await client.send({ token: 'CN_first', content, variant: '' })).toEqual(delivered);
    fake.expireAccessTokens();
    expect(await client.send({ token: 'CN_second', content, variant: '' })).toEqual(delivered);
    expect(fake.tokenRequests).toBe(2);
    expect(fake.requestsWith('CN_second').map((request) => request.code)).toEqual([11, 0]);
  });

  it('takes the auth URL and the send URL each on its own: with the way to the auth endpoint dead, sends still reach the send endpoint', async () => {
    let relay: TcpRelay | undefined;
    const { fake, client } = await setUp({
      authUrl: async (started) => {
        relay = await TcpRelay.start(Number(new URL(started.origin).port));
        cleanups.push(() => relay?.close() ?? Promise.resolve());
        return `${relay.origin}/server/v1/auth`;
      },
    });
    expect(await client.send({ token: 'CN_first', content, variant: '' })).toEqual(delivered);
    relay?.freeze();
    expect(await client.send({ token: 'CN_second', content, variant: '' })).toEqual(delivered);
    // A new token is asked of the auth URL, which no longer answers; the send URL still took the request that was refused.
    fake.expireAccessTokens();
    expect(await client.send({ token: 'CN_third', content, variant: '' })).toMatchObject({ kind: 'retry', reason: 'AccessTokenUnavailable' });
    expect(fake.tokenRequests).toBe(1);
    expect(fake.requestsWith('CN_third').map((request) => request.code)).toEqual([11]);
  });

  it('uses one auth token for twelve hours, then fetches the next', async () => {
    const { fake, client, clock } = await setUp();
    await client.send({ token: 'CN_a', content, variant: '' });
    clock.advance(11 * 3_600_000);
    await client.send({ token: 'CN_b', content, variant: '' });
    expect(fake.tokenRequests).toBe(1);
    clock.advance(3_600_000);
    await client.send({ token: 'CN_c', content, variant: '' });
    expect(fake.tokenRequests).toBe(2);
  });

  it('fails every delivery of the profile DailyQuotaExceeded once OPPO answers 33, without asking again that day', async () => {
    const { fake, client } = await setUp({ fake: { dailyLimit: 2 } });
    const first = await Promise.all(['CN_1', 'CN_2'].map((token) => client.send({ token, content, variant: '' })));
    expect(first).toEqual([delivered, delivered]);
    expect(await client.send({ token: 'CN_3', content, variant: '' })).toEqual({ kind: 'failed', reason: 'DailyQuotaExceeded' });
    expect(await client.send({ token: 'CN_4', content, variant: '' })).toEqual({ kind: 'failed', reason: 'DailyQuotaExceeded' });
    expect(fake.requests.map((request) => request.code)).toEqual([0, 33]);
  });

  it('refuses at start-up a profile whose secret file is empty, naming the key and not the content', () => {
    const block = oppoAppSchema.parse({ profiles: { _default: { appKey: 'k', masterSecretFile: secretFile(pki, 'oppo-empty', '') } } });
    expect(() => oppoMaker.load(block, new CredentialFiles({}), 'apps[0].push.oppo')).toThrow(
      /^apps\[0\]\.push\.oppo\.profiles\._default\.masterSecretFile: .*oppo-empty\.secret must hold the secret alone, on one line$/,
    );
  });

  it.each([
    [{ appKey: 'k', masterSecretFile: 'f', notifyLevel: 2 }, 'notifyLevel needs category'],
    [{ appKey: 'k', masterSecretFile: 'f', clickActionType: 4 }, 'click action type 4 needs clickActionActivity'],
    [{ appKey: 'k', masterSecretFile: 'f', clickActionType: 5 }, 'click action type 5 needs clickActionUrl'],
    [{ appKey: 'k', masterSecretFile: 'f', clickActionType: 3 }, 'expected one of 0|1|2|4|5'],
  ])('refuses the profile %j: %s', (profile, message) => {
    const parsed = oppoAppSchema.safeParse({ profiles: { _default: profile } });
    expect(parsed.success).toBe(false);
    expect(parsed.error?.issues.map((issue) => issue.message).join('; ')).toContain(message);
  });
});
