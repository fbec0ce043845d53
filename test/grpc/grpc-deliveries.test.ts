import { randomBytes } from 'node:crypto';
import { installationRemoval as removal } from '../push/support/installation-removal.ts';
import { status } from '@grpc/grpc-js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { installationShard } from '../../src/store/installation-shards.ts';
import { deviceToken } from '../support/gateways/gateway-fixtures.ts';
import { iosInstallation, uniqueName, type PushHerald } from '../push/support/push-herald.ts';
import { maxFailuresPerMessage } from '../../src/grpc/watch-push.ts';
import { masterMetadata, readStream, type PushClient } from './support/grpc-clients.ts';
import { startGrpcPushHerald, type GrpcPushHerald } from './support/grpc-push-herald.ts';

// Messages and REST bodies are untyped on the wire.
type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

let p: PushHerald;
let client: PushClient;
let herald: GrpcPushHerald;
beforeAll(async () => {
  herald = await startGrpcPushHerald();
  ({ p, client } = herald);
});
afterAll(() => herald?.close());

/** A REST entry as herald.v1.Delivery carries it: proto names, nulls unset. */
function asMessage(entry: Json): Json {
  const names: Record<string, string> = { appId: 'app_id', pushId: 'push_id', sliceKey: 'slice_key', tokenSuffix: 'token_suffix', messageId: 'message_id', latencyMs: 'latency_ms' };
  return Object.fromEntries(Object.entries(entry).filter(([, value]) => value !== null).map(([key, value]) => [names[key] ?? key, value]));
}

/** Every entry ListDeliveries answers for `request`, following next_cursor `limit` at a time. */
async function everyDelivery(request: Json, limit: number): Promise<{ entries: Json[]; pages: number }> {
  const entries: Json[] = [];
  let cursor: string | undefined;
  let pages = 0;
  do {
    const page = await client.call('ListDeliveries', { ...request, limit, ...(cursor === undefined ? {} : { cursor }) });
    expect(page.results?.length ?? 0).toBeLessThanOrEqual(limit);
    entries.push(...(page.results ?? []));
    cursor = page.next_cursor;
    pages += 1;
  } while (cursor !== undefined);
  return { entries, pages };
}

describe('ListDeliveries', () => {
  const channel = uniqueName('glog');
  const names = ['delivered', 'delivered-2', 'unregistered', 'bad-token', 'busy', 'down'] as const;
  const objectIds: Record<string, string> = {};
  let pushId: string;

  beforeAll(async () => {
    p.fakes.apns.respondTo(deviceToken(703), [{ status: 410, reason: 'Unregistered', timestamp: p.clock.now() }]);
    p.fakes.apns.respondTo(deviceToken(704), [{ status: 400, reason: 'BadDeviceToken' }]);
    p.fakes.apns.respondTo(deviceToken(705), [{ status: 429, reason: 'TooManyRequests' }]);
    p.fakes.apns.respondTo(deviceToken(706), Array.from({ length: 4 }, () => ({ status: 503, reason: 'ServiceUnavailable' })));
    for (const [n, name] of names.entries()) objectIds[name] = await p.saveInstallation({ deviceType: 'ios', deviceToken: deviceToken(701 + n), channels: [channel] });
    const sent = await client.call('SendPush', { data: JSON.stringify({ alert: 'Logged over gRPC' }), channels: [channel] });
    pushId = sent.object_id;
    expect(await p.settled(pushId)).toMatchObject({ devices: 6, successes: 3, invalidTokens: 2, errors: 1 });
  });

  it("answers a push's entries as REST does, field for field, a page at a time", async () => {
    const rest = await p.h.request('GET', `/1.1/notifications/${pushId}/deliveries?limit=1000`, { master: true });
    expect(rest.status).toBe(200);
    const whole = await everyDelivery({ push_id: pushId }, 1000);
    expect(whole.pages).toBe(1);
    expect(whole.entries).toEqual((rest.body as Json).results.map(asMessage));
    const paged = await everyDelivery({ push_id: pushId }, 2);
    expect(paged.pages).toBeGreaterThanOrEqual(3);
    expect(paged.entries).toEqual(whole.entries);

    const outcomeOf = (name: string) => whole.entries.filter((entry) => entry.installation === objectIds[name]).map((entry) => [entry.outcome, entry.reason, entry.attempts]);
    expect(outcomeOf('delivered')).toEqual([['delivered', undefined, 1]]);
    expect(outcomeOf('unregistered')).toEqual([['invalidToken', 'Unregistered', 1]]);
    expect(outcomeOf('bad-token')).toEqual([['invalidToken', 'BadDeviceToken', 1]]);
    expect(outcomeOf('busy')).toEqual([['delivered', undefined, 2]]);
    expect(outcomeOf('down')).toEqual([['failed', 'ServiceUnavailable', 4]]);
    expect(whole.entries.find((entry) => entry.installation === objectIds.down)).toMatchObject({ push_id: pushId, platform: 'ios', gateway: 'apns', status: 503, unregistered: false });
  });

  it('filters by outcome and by reason', async () => {
    const invalid = await everyDelivery({ push_id: pushId, outcome: 'invalidToken' }, 10);
    expect(invalid.entries.map((entry) => entry.reason).sort()).toEqual(['BadDeviceToken', 'Unregistered']);
    const notDelivered = await everyDelivery({ push_id: pushId, outcome: 'failed,invalidToken' }, 10);
    expect(notDelivered.entries.map((entry) => entry.installation).sort()).toEqual([objectIds['unregistered'], objectIds['bad-token'], objectIds.down].sort());
    const down = await everyDelivery({ push_id: pushId, reason: 'ServiceUnavailable' }, 10);
    expect(down.entries.map((entry) => entry.installation)).toEqual([objectIds.down]);
  });

  it("lists an installation's entries, also once the installation is gone", async () => {
    const gone = objectIds.unregistered as string;
    await expect.poll(async () => (await p.h.request('GET', `/1.1/installations/${gone}`, { master: true })).status, removal).toBe(404);
    const page = await client.call('ListDeliveries', { installation: gone });
    expect(page.results).toEqual([expect.objectContaining({ push_id: pushId, installation: gone, outcome: 'invalidToken', reason: 'Unregistered', unregistered: true })]);
    expect(page.next_cursor).toBeUndefined();
    const none = await client.call('ListDeliveries', { installation: objectIds.delivered, outcome: 'failed' });
    expect(none.results ?? []).toEqual([]);
  });

  it('refuses what REST refuses, INVALID_ARGUMENT with the same message', async () => {
    const cases: [Json, string][] = [
      [{ outcome: 'lost' }, 'outcome=lost'],
      [{ reason: 'NoSuchReason' }, 'reason=NoSuchReason'],
      [{ limit: 0 }, 'limit=0'],
      [{ limit: 1001 }, 'limit=1001'],
      [{ limit: -5 }, 'limit=-5'],
      [{ cursor: 'not-a-cursor' }, 'cursor=not-a-cursor'],
    ];
    for (const [fields, query] of cases) {
      const rest = await p.h.request('GET', `/1.1/notifications/${pushId}/deliveries?${query}`, { master: true });
      expect(rest.status, query).toBe(400);
      const failure = await client.failure('ListDeliveries', { push_id: pushId, ...fields });
      expect(failure, query).toMatchObject({ code: status.INVALID_ARGUMENT, heraldCode: 1, message: (rest.body as Json).error, detail: { code: 1, error: (rest.body as Json).error } });
    }
    expect(await client.failure('ListDeliveries', { outcome: 'failed' })).toMatchObject({ code: status.INVALID_ARGUMENT, heraldCode: 1, message: expect.stringContaining('push_id or installation') });
  });

  it('answers NOT_FOUND for an unknown push and PERMISSION_DENIED without the master key', async () => {
    expect(await client.failure('ListDeliveries', { push_id: 'nosuchpush' })).toMatchObject({ code: status.NOT_FOUND, heraldCode: 101 });
    const appKey = masterMetadata(p.h.app, { 'x-svc-id': p.h.app.id, 'x-svc-key': p.h.app.key });
    expect(await client.failure('ListDeliveries', { push_id: pushId }, appKey)).toMatchObject({ code: status.PERMISSION_DENIED });
    expect(await client.failure('ListDeliveries', { installation: objectIds.delivered }, appKey)).toMatchObject({ code: status.PERMISSION_DENIED });
  });
});

describe('WatchPush with failures', () => {
  /** `count` objectIds of one shard (the quick engine's 4), ascending: the order a shard's task reads them in, a slice (50) at a time. */
  function objectIdsOfOneShard(count: number): string[] {
    const ids: string[] = [];
    while (ids.length < count) {
      const objectId = randomBytes(12).toString('hex');
      if (installationShard(objectId, 4) === 0) ids.push(objectId);
    }
    return ids.sort();
  }

  it('streams each failed and invalid-token device once, as its slice is recorded, beside the progress', async () => {
    const channel = uniqueName('gwatchf');
    // 60 devices of one task: its first slice holds the failing devices, its second (read only after the first is recorded) the stalled one.
    const installations = objectIdsOfOneShard(60).map((objectId, n) => iosInstallation(720 + n, p.clock.now(), { channels: [channel], objectId }));
    await p.seed(installations);
    const failing = installations.slice(0, 3);
    p.fakes.apns.respondTo(deviceToken(720), [{ status: 400, reason: 'BadDeviceToken' }]);
    p.fakes.apns.respondTo(deviceToken(721), [{ status: 410, reason: 'Unregistered', timestamp: p.clock.now() }]);
    p.fakes.apns.respondTo(deviceToken(722), [{ status: 400, reason: 'PayloadTooLarge' }]);
    // The second slice ends after the engine gives up on this first answer (2 s) and sends again: the push stays in-queue meanwhile.
    p.fakes.apns.respondTo(deviceToken(779), [{ stall: true }]);

    const sent = await client.call('SendPush', { data: JSON.stringify({ alert: 'Watched failing' }), channels: [channel] });
    const { messages, failure } = await readStream(client.watch(sent.object_id, masterMetadata(p.h.app), { failures: true }), { timeoutMs: 20_000, what: 'the watch of a failing push' });

    expect(failure).toBeNull();
    const failures = messages.flatMap((message) => (message.failures ?? []) as Json[]);
    expect(failures.map((entry) => [entry.installation, entry.outcome, entry.reason]).sort()).toEqual(
      [
        [failing[0]?.objectId, 'invalidToken', 'BadDeviceToken'],
        [failing[1]?.objectId, 'invalidToken', 'Unregistered'],
        [failing[2]?.objectId, 'failed', 'PayloadTooLarge'],
      ].sort(),
    );
    expect(failures.every((entry) => entry.push_id === sent.object_id && entry.gateway === 'apns' && entry.attempts === 1)).toBe(true);
    // They came while the push was still being sent, with counters that hold them.
    const firstWithFailures = messages.find((message) => (message.failures ?? []).length > 0) as Json;
    expect(firstWithFailures).toMatchObject({ status: 'in-queue', errors: 1, invalid_tokens: 2 });
    expect(messages.at(-1)).toMatchObject({ status: 'done', devices: 60, successes: 57, errors: 1, invalid_tokens: 2 });
  });

  it('sends no failures unless asked', async () => {
    const channel = uniqueName('gwatchn');
    await p.saveInstallation({ deviceType: 'ios', deviceToken: deviceToken(730), channels: [channel] });
    p.fakes.apns.respondTo(deviceToken(730), [{ status: 400, reason: 'BadDeviceToken' }]);
    const sent = await client.call('SendPush', { data: JSON.stringify({ alert: 'Quiet' }), channels: [channel] });
    const { messages } = await readStream(client.watch(sent.object_id), { what: 'a watch without failures' });
    expect(messages.at(-1)).toMatchObject({ status: 'done', invalid_tokens: 1 });
    expect(messages.every((message) => message.failures === undefined || message.failures.length === 0)).toBe(true);
  });

  it('sends the failures of a push that had ended before the watch', async () => {
    const channel = uniqueName('gwatchd');
    const objectId = await p.saveInstallation({ deviceType: 'ios', deviceToken: deviceToken(731), channels: [channel] });
    p.fakes.apns.respondTo(deviceToken(731), [{ status: 400, reason: 'BadDeviceToken' }]);
    const sent = await client.call('SendPush', { data: JSON.stringify({ alert: 'Ended' }), channels: [channel] });
    await p.settled(sent.object_id);
    const { messages, failure } = await readStream(client.watch(sent.object_id, masterMetadata(p.h.app), { failures: true }), { what: 'the watch of an ended push' });
    expect(failure).toBeNull();
    expect(messages).toEqual([expect.objectContaining({ status: 'done', invalid_tokens: 1, failures: [expect.objectContaining({ installation: objectId, outcome: 'invalidToken', reason: 'BadDeviceToken' })] })]);
  });

  it('splits many failures into messages of at most 500, each device once', async () => {
    const channel = uniqueName('gwatchm');
    // iOS installations without a token: each is targeted and fails NoDeviceToken without a request.
    const tokenless = Array.from({ length: 620 }, (_, n) => {
      const { deviceToken: _token, ...installation } = iosInstallation(800 + n, p.clock.now(), { channels: [channel] });
      return installation;
    });
    await p.seed(tokenless);
    const sent = await client.call('SendPush', { data: JSON.stringify({ alert: 'Nowhere' }), channels: [channel] });
    expect(await p.settled(sent.object_id)).toMatchObject({ devices: 620, errors: 620, errorReasons: { NoDeviceToken: 620 } });

    const { messages, failure } = await readStream(client.watch(sent.object_id, masterMetadata(p.h.app), { failures: true }), { what: 'the watch of a push of 620 failures' });
    expect(failure).toBeNull();
    // All were recorded before the watch began: one look reads them, and they go out 500 at a time.
    expect(messages.map((message) => (message.failures ?? []).length)).toEqual([maxFailuresPerMessage, 620 - maxFailuresPerMessage]);
    expect(messages.every((message) => message.status === 'done' && message.errors === 620)).toBe(true);
    const installations = messages.flatMap((message) => (message.failures as Json[]).map((entry) => entry.installation));
    expect(new Set(installations)).toEqual(new Set(tokenless.map((installation) => installation.objectId)));
    expect(installations).toHaveLength(620);
  });
});
