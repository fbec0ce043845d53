import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { deviceToken } from '../../support/gateways/gateway-fixtures.ts';
import { eventually } from '../../support/eventually.ts';
import { testApp } from '../../support/test-herald.ts';
import { WebhookReceiver, type ReceivedEvent } from '../../support/webhook-receiver.ts';
import { androidInstallation, startPushHerald, uniqueName, type PushHerald } from '../support/push-herald.ts';

/*
 * Webhooks end to end (docs/webhooks.md): a push's outcomes reach the app's
 * endpoints as signed batches, at least once, and a dead endpoint never holds
 * the push back. On the embedded default and on Cassandra, Redis and Kafka.
 */

const secrets = { ops: 'ops-secret-0123456789abcdef', all: 'all-secret-0123456789abcdef', stuck: 'stuck-secret-0123456789abcd' };
let p: PushHerald;
let ops: WebhookReceiver;
let all: WebhookReceiver;
let stuck: WebhookReceiver;
const stalledApp = testApp();

beforeAll(async () => {
  const now = () => p.clock.now();
  ops = await WebhookReceiver.start({ secret: secrets.ops, now });
  all = await WebhookReceiver.start({ secret: secrets.all, now });
  stuck = await WebhookReceiver.start({ secret: secrets.stuck, now });
  stuck.answerAll({ kind: 'stall' });
  p = await startPushHerald({
    engine: { webhooks: { maxQueuedEvents: 200, batchDelayMs: 20, retryBaseDelayMs: 50, retryMaxDelayMs: 1500, requestTimeoutMs: 30_000, shutdownDrainMs: 200 } },
    webhooks: [
      { name: 'ops', url: ops.url, secret: secrets.ops },
      { name: 'all', url: all.url, secret: secrets.all, events: ['delivery.succeeded', 'push.done'] },
    ],
    extraApps: (fakes) => [{ ...stalledApp, push: fakes.appPush, webhooks: [{ name: 'stuck', url: stuck.url, secret: secrets.stuck, events: ['delivery.failed'] }] }],
  });
}, 60_000);

afterAll(async () => {
  await p?.close();
  await Promise.all([ops?.close(), all?.close(), stuck?.close()]);
});

const ofPush = (pushId: string) => (event: ReceivedEvent) => event.data.pushId === pushId || event.data.objectId === pushId;

/** `/metrics` samples whose line starts with `prefix`, summed. */
async function metric(prefix: string): Promise<number> {
  const text = await (await fetch(`${p.h.baseUrl}/metrics`)).text();
  return text
    .split('\n')
    .filter((line) => line.startsWith(prefix))
    .reduce((sum, line) => sum + Number(line.split(' ').at(-1)), 0);
}

describe('webhooks of a push', () => {
  it("tell the app's endpoints what became of each device, signed, and the push's final record", async () => {
    const channel = uniqueName('hook');
    p.fakes.apns.respondTo(deviceToken(901), [{ status: 400, reason: 'BadDeviceToken' }]);
    p.fakes.apns.respondTo(deviceToken(902), [{ status: 410, reason: 'Unregistered', timestamp: p.clock.now() }]);
    const delivered = [await p.saveInstallation({ deviceType: 'ios', deviceToken: deviceToken(900), channels: [channel] }), await p.saveInstallation({ deviceType: 'android', installationId: uniqueName('a'), registrationId: uniqueName('fcm-'), vendor: 'fcm', channels: [channel] })];
    const badToken = await p.saveInstallation({ deviceType: 'ios', deviceToken: deviceToken(901), channels: [channel] });
    const gone = await p.saveInstallation({ deviceType: 'ios', deviceToken: deviceToken(902), channels: [channel] });
    const noToken = await p.saveInstallation({ deviceType: 'android', installationId: uniqueName('n'), vendor: 'fcm', channels: [channel] });
    const res = await p.send({ channels: [channel], data: { alert: 'Hooked' } });
    const pushId = res.body.objectId as string;
    const record = await p.settled(pushId);
    expect(record).toMatchObject({ devices: 5, successes: 2, invalidTokens: 2, errors: 1 });

    const told = await ops.until('the push told to ops', (accepted) => accepted.filter(ofPush(pushId)).some((event) => event.type === 'push.done') && accepted.filter(ofPush(pushId)).length >= 5);
    const events = [...new Map(told.filter(ofPush(pushId)).map((event) => [event.id, event])).values()];
    const byType = (type: string) => events.filter((event) => event.type === type);
    expect(byType('delivery.failed').map((event) => [event.data.installation, event.data.outcome, event.data.reason]).sort()).toEqual(
      [
        [badToken, 'invalidToken', 'BadDeviceToken'],
        [gone, 'invalidToken', 'Unregistered'],
        [noToken, 'failed', 'NoRegistrationId'],
      ].sort(),
    );
    expect(byType('installation.removed').map((event) => [event.data.installation, event.data.unregistered])).toEqual([[gone, true]]);
    expect(byType('delivery.succeeded')).toEqual([]);
    expect(byType('push.done').map((event) => event.data)).toEqual([expect.objectContaining({ objectId: pushId, status: 'done', devices: 5, successes: 2, invalidTokens: 2, errors: 1 })]);
    expect(byType('push.done')[0]?.data).not.toHaveProperty('_spec');
    expect(ops.batches.every((batch) => batch.verified)).toBe(true);

    const succeeded = await all.until('the push told to all', (accepted) => accepted.filter(ofPush(pushId)).some((event) => event.type === 'push.done'));
    expect([...new Set(succeeded.filter(ofPush(pushId)).filter((event) => event.type === 'delivery.succeeded').map((event) => event.data.installation))].sort()).toEqual([...delivered].sort());
    expect(succeeded.filter(ofPush(pushId)).every((event) => event.type === 'delivery.succeeded' || event.type === 'push.done')).toBe(true);
  });

  it('tell push.done of a push settled without a task: one that expired before it was sent', async () => {
    const res = await p.send({ channels: [uniqueName('late')], data: { alert: 'Too late' }, expiration_time: new Date(p.clock.now() - 1000).toISOString() });
    const pushId = res.body.objectId as string;
    await p.settled(pushId);
    const told = await ops.until('push.done of the expired push', (accepted) => accepted.some((event) => event.type === 'push.done' && event.data.objectId === pushId));
    expect(told.find((event) => event.data.objectId === pushId)?.data).toMatchObject({ status: 'done', errorMessage: 'The push expired before it was sent.' });
  });

  it('reach an endpoint that answers errors and is down for a while, every event at least once, repeats under the same id', async () => {
    const channel = uniqueName('flaky');
    const tokens = Array.from({ length: 12 }, (_, n) => deviceToken(950 + n));
    for (const token of tokens) p.fakes.apns.respondTo(token, [{ status: 400, reason: 'BadDeviceToken' }]);
    for (const token of tokens) await p.saveInstallation({ deviceType: 'ios', deviceToken: token, channels: [channel] });
    await ops.down();
    const unreachable = await metric('herald_webhook_requests_total{app="' + p.h.app.id + '",endpoint="ops",result="unreachable"}');
    const res = await p.send({ channels: [channel], data: { alert: 'Flaky' } });
    const pushId = res.body.objectId as string;
    await p.settled(pushId);
    await eventually('attempts that found the endpoint down', () => metric(`herald_webhook_requests_total{app="${p.h.app.id}",endpoint="ops",result="unreachable"}`), (count) => count >= unreachable + 2);
    ops.answerNext({ kind: 'status', status: 500, body: 'oops' }, { kind: 'status', status: 429, headers: { 'retry-after': '1' } });
    await ops.up();
    await ops.until('every event of the push', () => [...ops.unique.values()].filter(ofPush(pushId)).length === 13);
    const failedIds = [...ops.unique.values()].filter(ofPush(pushId)).filter((event) => event.type === 'delivery.failed').map((event) => event.id);
    expect(failedIds).toHaveLength(12);
    expect(ops.batches.filter((batch) => batch.answer === 500 || batch.answer === 429)).toHaveLength(2);
    expect(ops.batches.every((batch) => batch.verified)).toBe(true);
  });

  it('finish while an endpoint never answers, whose queue stays bounded and counts what it drops', async () => {
    const devices = Array.from({ length: 600 }, (_, n) => androidInstallation(`${uniqueName('s')}-${n}`, p.clock.now(), { registrationId: undefined, channels: ['stalled'] }));
    await p.h.herald.runtime.store.installations.insertMany(stalledApp.id, devices);
    const queued = `herald_webhook_queued_events{app="${stalledApp.id}",endpoint="stuck"}`;
    const dropped = `herald_webhook_events_dropped_total{app="${stalledApp.id}",endpoint="stuck",reason="queue_full"}`;
    const [queuedBefore, droppedBefore] = [await metric(queued), await metric(dropped)];
    const res = await p.send({ channels: ['stalled'], data: { alert: 'Nobody listens' } }, { app: stalledApp });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    const record = await eventually(
      'the push to the stalled app done',
      async () => (await p.h.request('GET', `/1.1/tables/Notifications/${res.body.objectId as string}`, { app: stalledApp })).body,
      (read) => read.status === 'done',
      { timeoutMs: 15_000 },
    );
    expect(record).toMatchObject({ devices: 600, errors: 600, errorReasons: { NoRegistrationId: 600 } });
    expect(stuck.stalled).toBe(1);
    expect(stuck.batches.filter((batch) => batch.answer !== 'stalled' && batch.answer !== 'dropped')).toEqual([]);
    expect(await metric(queued)).toBe(200);
    expect((await metric(dropped)) - droppedBefore).toBe(600 - (200 - queuedBefore));
  });
});
