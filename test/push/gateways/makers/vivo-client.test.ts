import { createHash } from 'node:crypto';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { vivoAppSchema } from '../../../../src/config/makers/vivo-schema.ts';
import { CredentialFiles } from '../../../../src/push/gateways/credential-files.ts';
import { delivered } from '../../../../src/push/gateways/delivery.ts';
import { noopGatewayMetrics } from '../../../../src/push/gateways/gateway-metrics.ts';
import { MakerClient } from '../../../../src/push/gateways/makers/maker-client.ts';
import { MakerHttp } from '../../../../src/push/gateways/makers/maker-http.ts';
import { vivoMaker } from '../../../../src/push/gateways/makers/vivo/vivo-maker.ts';
import { buildMakerContent, type MakerContent } from '../../../../src/push/payload/maker-content.ts';
import type { FakeVivo, FakeVivoOptions } from '../../../support/gateways/fake-vivo.ts';
import { startFakeVivo, vivoApps } from '../../../support/gateways/gateway-fixtures.ts';
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

function contentOf(data: Record<string, unknown>): MakerContent {
  return buildMakerContent({ data, androidChannel: null, expiresAt: null }, 'vivo', vivoMaker.overrideFields);
}

const content = contentOf({ alert: 'Hello', ref: 1 });

/** A regId as vivo issues them: 23 characters; distinct per `seed`. */
function regId(seed: string | number): string {
  return createHash('sha256').update(String(seed)).digest('hex').slice(0, 23);
}

interface SetUp {
  fake: FakeVivo;
  client: MakerClient;
  clock: ManualClock;
}

/** The fake vivo and a client of its `_default` app through the maker's own loader, with `secret` as the AppSecret. */
async function setUp(options: { secret?: string; fake?: Partial<FakeVivoOptions>; clientClock?: ManualClock; sendListUrl?: (fake: FakeVivo) => Promise<string> } = {}): Promise<SetUp> {
  const clock = new ManualClock();
  const fake = await startFakeVivo(pki, { clock, ...options.fake });
  cleanups.push(() => fake.close());
  const block = vivoAppSchema.parse({
    endpoints: { auth: fake.authUrl, send: fake.sendUrl, saveList: fake.saveListUrl, sendList: (await options.sendListUrl?.(fake)) ?? fake.sendListUrl },
    profiles: { _default: { appId: vivoApps._default.appId, appKey: vivoApps._default.appKey, appSecretFile: secretFile(pki, 'vivo-client-test', options.secret ?? vivoApps._default.appSecret) } },
  });
  const profiles = vivoMaker.load(block, new CredentialFiles({}), 'apps[0].push.vivo');
  const http = new MakerHttp({ gateway: 'vivo', ca: pki.ca.certPem, connections: 2, requestTimeoutMs: 1000, metrics: noopGatewayMetrics });
  const clientClock = options.clientClock ?? clock;
  const protocol = profiles.protocol('_default', { http, clock: clientClock });
  if (protocol === undefined) throw new Error('no _default profile');
  const client = new MakerClient({ gateway: 'vivo', profile: '_default', protocol, http, clock: clientClock });
  cleanups.push(() => client.close());
  return { fake, client, clock };
}

function sendAll(client: MakerClient, tokens: readonly string[], of: MakerContent = content) {
  return Promise.all(tokens.map((token) => client.send({ token, content: of, variant: '' })));
}

describe('the vivo client against the fake vivo Push', () => {
  it('sends 2001 deliveries of one turn as one saved message, two pushToList requests of 1000, and a single send for the last, on one authToken', async () => {
    const { fake, client } = await setUp();
    const tokens = Array.from({ length: 2001 }, (_, n) => regId(n));
    const outcomes = await sendAll(client, tokens);
    expect(new Set(outcomes)).toEqual(new Set([delivered]));
    expect(fake.requestsTo('saveList')).toHaveLength(1);
    expect(fake.requestsTo('sendList').map((request) => request.tokens.length).sort((a, b) => a - b)).toEqual([1000, 1000]);
    expect(fake.requestsTo('send').map((request) => request.tokens.length)).toEqual([1]);
    const taskIds = new Set(fake.requestsTo('sendList').map((request) => request.body?.taskId));
    expect(taskIds.size).toBe(1);
    expect(fake.requestsTo('saveList')[0]?.body).toMatchObject({ appId: Number(vivoApps._default.appId), title: 'Hello', content: 'Hello', clientCustomMap: { ref: '1' } });
    expect(fake.requests[0]?.headers['content-type']).toBe('application/json;charset=utf-8');
    expect(fake.tokenRequests).toBe(1);
    expect(fake.connections).toBeLessThanOrEqual(3);
    for (const token of tokens) expect(fake.log.countOf(token)).toBe(1);
  });

  it('gives every request a requestId of its push, the same for the same regIds sent again', async () => {
    const { fake, client } = await setUp();
    expect(await sendAll(client, [regId('w1'), regId('w2')])).toEqual([delivered, delivered]);
    const pair = [regId('a'), regId('b')];
    fake.respondNext({ status: 500, body: 'Internet server error!' });
    expect(await sendAll(client, pair)).toEqual([
      { kind: 'retry', reason: 'VivoServerError', retryAfterMs: 1000 },
      { kind: 'retry', reason: 'VivoServerError', retryAfterMs: 1000 },
    ]);
    expect(await sendAll(client, pair)).toEqual([delivered, delivered]);
    const [first, again] = fake.requestsTo('sendList').slice(1);
    expect([first?.status, again?.status]).toEqual([500, 200]);
    expect(again?.body?.requestId).toBe(first?.body?.requestId);
    expect(fake.log.countOf(pair[0] as string)).toBe(1);
    // One save for the push, and one key leading each of its requestIds.
    expect(fake.requestsTo('saveList')).toHaveLength(1);
    const key = (first?.body?.requestId as string).split('-')[0];
    for (const request of fake.requests) expect(request.body?.requestId).toMatch(new RegExp(`^${key}-`));
    expect(await sendAll(client, pair, contentOf({ alert: 'Other push' }))).toEqual([delivered, delivered]);
    expect(fake.requestsTo('sendList').at(-1)?.body?.requestId).not.toMatch(new RegExp(`^${key}-`));
  });

  it('takes each of its four URLs on its own: with the way to the list send dead, single sends and saves still reach theirs', async () => {
    let relay: TcpRelay | undefined;
    const { fake, client } = await setUp({
      sendListUrl: async (started) => {
        relay = await TcpRelay.start(Number(new URL(started.origin).port));
        cleanups.push(() => relay?.close() ?? Promise.resolve());
        return `${relay.origin}/message/pushToList`;
      },
    });
    expect(await sendAll(client, [regId(1), regId(2)])).toEqual([delivered, delivered]);
    relay?.freeze();
    expect(await client.send({ token: regId(3), content, variant: '' })).toEqual(delivered);
    const list = await sendAll(client, [regId(4), regId(5)], contentOf({ alert: 'Another push' }));
    expect(list).toMatchObject([{ kind: 'retry', reason: 'Timeout' }, { kind: 'retry', reason: 'Timeout' }]);
    expect(fake.requests.map((request) => `${request.endpoint} ${request.result}`)).toEqual(['saveList 0', 'sendList 0', 'send 0', 'saveList 0']);
  });

  it('saves the message again when vivo no longer knows its taskId (10152), and delivers', async () => {
    const { fake, client } = await setUp();
    expect(await sendAll(client, [regId(1), regId(2)])).toEqual([delivered, delivered]);
    fake.forgetSavedMessages();
    expect(await sendAll(client, [regId(3), regId(4)])).toEqual([delivered, delivered]);
    expect(fake.requests.map((request) => `${request.endpoint} ${request.result}`)).toEqual(['saveList 0', 'sendList 0', 'sendList 10152', 'saveList 0', 'sendList 0']);
  });

  it('ends each regId by the status vivo gives it, removing only those it says are gone', async () => {
    const { fake, client } = await setUp();
    const [gone, missing, idle, fine] = [regId('gone'), regId('missing'), regId('idle'), regId('fine')];
    fake.invalidate(2, gone);
    fake.invalidate(1, missing);
    fake.invalidate(3, idle);
    expect(await sendAll(client, [gone, missing, idle, fine])).toEqual([
      { kind: 'invalid-token', reason: 'VivoUninstalled', unregistered: true },
      { kind: 'invalid-token', reason: 'VivoUserNotFound', unregistered: true },
      { kind: 'invalid-token', reason: 'VivoInactive', unregistered: false },
      delivered,
    ]);
    // A lone regId that does not exist, through a profile that has delivered: removed too.
    const lone = regId('lone');
    fake.invalidate(1, lone);
    expect(await client.send({ token: lone, content, variant: '' })).toEqual({ kind: 'invalid-token', reason: 'VivoUserNotFound', unregistered: true });
  });

  it('keeps a lone regId vivo finds nowhere through a profile that has not delivered yet', async () => {
    const { fake, client } = await setUp();
    const lone = regId('lone');
    fake.invalidate(1, lone);
    expect(await client.send({ token: lone, content, variant: '' })).toEqual({ kind: 'invalid-token', reason: 'VivoUserNotFound', unregistered: false });
  });

  it('counts AccessTokenRefused and sends nothing when vivo refuses the sign of another AppSecret', async () => {
    const { fake, client } = await setUp({ secret: 'not-the-app-secret' });
    expect(await client.send({ token: regId(1), content, variant: '' })).toMatchObject({ kind: 'failed', reason: 'AccessTokenRefused' });
    expect(fake.requests).toEqual([]);
    expect(fake.tokenRequests).toBe(0);
  });

  it('counts AccessTokenRefused when its clock is more than ten minutes off vivo\'s (10207)', async () => {
    const skewed = new ManualClock();
    skewed.advance(-11 * 60_000);
    const { fake, client } = await setUp({ clientClock: skewed });
    expect(await client.send({ token: regId(1), content, variant: '' })).toMatchObject({ kind: 'failed', reason: 'AccessTokenRefused' });
    expect(fake.tokenRequests).toBe(0);
  });

  it('gets a new authToken when vivo answers 10000 and sends once more, on the single send and on the list send', async () => {
    const { fake, client, clock } = await setUp();
    expect(await client.send({ token: regId(1), content, variant: '' })).toEqual(delivered);
    fake.expireAccessTokens();
    expect(await client.send({ token: regId(2), content, variant: '' })).toEqual(delivered);
    // A token fetched because the last was refused is not fetched again within a minute (the framework's rule).
    clock.advance(61_000);
    fake.expireAccessTokens();
    expect(await sendAll(client, [regId(3), regId(4)])).toEqual([delivered, delivered]);
    expect(fake.tokenRequests).toBe(3);
    expect(fake.requests.map((request) => `${request.endpoint} ${request.result}`)).toEqual(['send 0', 'send 10000', 'send 0', 'saveList 10000', 'saveList 0', 'sendList 0']);
  });

  it('uses one authToken for an hour, then fetches the next', async () => {
    const { fake, client, clock } = await setUp();
    await client.send({ token: regId(1), content, variant: '' });
    clock.advance(50 * 60_000);
    await client.send({ token: regId(2), content, variant: '' });
    expect(fake.tokenRequests).toBe(1);
    clock.advance(10 * 60_000);
    await client.send({ token: regId(3), content, variant: '' });
    expect(fake.tokenRequests).toBe(2);
  });

  it('fails every delivery of the profile DailyQuotaExceeded once vivo answers 10070, without asking again that day', async () => {
    const { fake, client } = await setUp({ fake: { dailyLimit: 2 } });
    expect(await sendAll(client, [regId(1), regId(2)])).toEqual([delivered, delivered]);
    expect(await client.send({ token: regId(3), content, variant: '' })).toEqual({ kind: 'failed', reason: 'DailyQuotaExceeded' });
    expect(await client.send({ token: regId(4), content, variant: '' })).toEqual({ kind: 'failed', reason: 'DailyQuotaExceeded' });
    expect(fake.requests.map((request) => request.result)).toEqual([0, 0, 10070]);
  });

  it('counts DailyQuotaExceeded when vivo refuses the day\'s saves (10252)', async () => {
    const { fake, client } = await setUp({ fake: { dailySaveLimit: 0 } });
    expect(await sendAll(client, [regId(1), regId(2)])).toEqual([
      { kind: 'failed', reason: 'DailyQuotaExceeded' },
      { kind: 'failed', reason: 'DailyQuotaExceeded' },
    ]);
    expect(fake.requests.map((request) => `${request.endpoint} ${request.result}`)).toEqual(['saveList 10252']);
  });

  it('fails a push whose custom keys are over vivo\'s bounds without sending it', async () => {
    const { fake, client } = await setUp();
    expect(await client.send({ token: regId(1), content: contentOf({ alert: 'A', note: 'x'.repeat(1100) }), variant: '' })).toEqual({ kind: 'failed', reason: 'PayloadTooLarge' });
    expect(fake.requests).toEqual([]);
  });

  it('refuses at start-up a profile whose secret file is empty, naming the key and not the content', () => {
    const block = vivoAppSchema.parse({ profiles: { _default: { appId: '1', appKey: 'k', appSecretFile: secretFile(pki, 'vivo-empty', '') } } });
    expect(() => vivoMaker.load(block, new CredentialFiles({}), 'apps[0].push.vivo')).toThrow(
      /^apps\[0\]\.push\.vivo\.profiles\._default\.appSecretFile: .*vivo-empty\.secret must hold the secret alone, on one line$/,
    );
  });

  it.each([
    [{ appId: '1', appKey: 'k', appSecretFile: 'f', skipType: 4 }, 'skipType 4 needs skipContent'],
    [{ appId: '1', appKey: 'k', appSecretFile: 'f', skipType: 3 }, 'expected one of 1|2|4'],
    [{ appId: 'abc', appKey: 'k', appSecretFile: 'f' }, 'the numeric App ID'],
    [{ appId: '1', appKey: 'k', appSecretFile: 'f', classification: 2 }, 'expected one of 0|1'],
  ])('refuses the profile %j: %s', (profile, message) => {
    const parsed = vivoAppSchema.safeParse({ profiles: { _default: profile } });
    expect(parsed.success).toBe(false);
    expect(parsed.error?.issues.map((issue) => issue.message).join('; ')).toContain(message);
  });
});
