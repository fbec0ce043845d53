import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { systemClock } from '../../../../src/core/clock.ts';
import { silentLogger } from '../../../../src/core/logger.ts';
import { webhookSettingsSchema, type WebhookSettings } from '../../../../src/config/webhooks-schema.ts';
import { WebhookEndpointQueue } from '../../../../src/push/outcomes/webhooks/webhook-endpoint-queue.ts';
import { webhookEventJson, type WebhookEvent } from '../../../../src/push/outcomes/webhooks/webhook-event.ts';
import { WebhookHttp } from '../../../../src/push/outcomes/webhooks/webhook-http.ts';
import { webhookSignature } from '../../../../src/push/outcomes/webhooks/webhook-signature.ts';
import { eventually } from '../../../support/eventually.ts';
import { WebhookReceiver } from '../../../support/webhook-receiver.ts';
import { deliveryEvent, RecordedWebhookMetrics } from '../support/outcome-fixtures.ts';

const secret = 'whsec-0123456789abcdef0123456789abcdef';

/** Quick settings: no batching delay, short backoff. */
function settings(overrides: Partial<WebhookSettings> = {}): WebhookSettings {
  return webhookSettingsSchema.parse({ batchDelayMs: 0, retryBaseDelayMs: 20, retryMaxDelayMs: 200, requestTimeoutMs: 2000, ...overrides });
}

function failed(from: number, count: number): WebhookEvent[] {
  return Array.from({ length: count }, (_, index) => ({ type: 'delivery.failed' as const, delivery: deliveryEvent(from + index) }));
}

let receiver: WebhookReceiver;
let metrics: RecordedWebhookMetrics;
const opened: { queue: WebhookEndpointQueue; http: WebhookHttp }[] = [];

function queueTo(url: string, overrides: Partial<WebhookSettings> = {}, http = new WebhookHttp({ ca: undefined, requestTimeoutMs: overrides.requestTimeoutMs ?? 2000 })): WebhookEndpointQueue {
  const queue = new WebhookEndpointQueue({
    endpoint: { appId: 'shop', name: 'warehouse', url: new URL(url), secret, events: new Set(['delivery.failed']) },
    settings: settings(overrides),
    http,
    clock: systemClock,
    logger: silentLogger(),
    metrics,
  });
  opened.push({ queue, http });
  return queue;
}

beforeEach(async () => {
  receiver = await WebhookReceiver.start({ secret });
  metrics = new RecordedWebhookMetrics();
});

afterEach(async () => {
  for (const { queue, http } of opened.splice(0)) {
    await queue.close(0);
    await http.close();
  }
  await receiver.close();
});

describe('a webhook endpoint queue', () => {
  it('sends the events in signed batches of at most maxBatchEvents, in order and exactly as made', async () => {
    const events = failed(0, 450);
    queueTo(receiver.url, { maxBatchEvents: 200 }).offer(events);
    await receiver.until('450 events', (accepted) => accepted.length === 450);
    expect(receiver.batches.map((batch) => batch.events.length)).toEqual([200, 200, 50]);
    expect(receiver.batches.every((batch) => batch.verified)).toBe(true);
    expect(receiver.accepted).toEqual(events.map(webhookEventJson));
    expect(JSON.parse(receiver.batches[0]?.body ?? '{}')).toMatchObject({ version: 1, app: 'shop', endpoint: 'warehouse' });
    await eventually('the deliveries counted', () => metrics.deliveredTo('shop', 'warehouse'), (count) => count === 450);
  });

  it('waits batchDelayMs for company before a batch that is not full goes', async () => {
    const queue = queueTo(receiver.url, { batchDelayMs: 300, maxBatchEvents: 100 });
    const started = performance.now();
    queue.offer(failed(0, 3));
    setTimeout(() => queue.offer(failed(3, 2)), 50);
    await receiver.until('5 events', (accepted) => accepted.length === 5);
    expect(receiver.batches.map((batch) => batch.events.length)).toEqual([5]);
    expect(performance.now() - started).toBeGreaterThanOrEqual(290);
  });

  it('retries a batch answered 500 until it is accepted, signed anew each time under the same batch id', async () => {
    receiver.answerNext({ kind: 'status', status: 500, body: 'busy' }, { kind: 'status', status: 503 });
    queueTo(receiver.url).offer(failed(0, 10));
    await receiver.until('the batch accepted', (accepted) => accepted.length === 10);
    expect(receiver.batches.map((batch) => batch.answer)).toEqual([500, 503, 200]);
    expect(new Set(receiver.batches.map((batch) => batch.headers['herald-batch'])).size).toBe(1);
    expect(receiver.batches.map((batch) => batch.headers['herald-attempt'])).toEqual(['1', '2', '3']);
    expect(receiver.batches.every((batch) => batch.verified)).toBe(true);
    await eventually('three requests counted', () => metrics.results, (results) => results.length === 3);
    expect(metrics.results).toEqual(['5xx', '5xx', '2xx']);
  });

  it('waits as long as the Retry-After of a 429 says before the next attempt', async () => {
    receiver.answerNext({ kind: 'status', status: 429, headers: { 'retry-after': '1' } });
    queueTo(receiver.url, { retryMaxDelayMs: 5000 }).offer(failed(0, 1));
    await receiver.untilBatches(2, 5000);
    const [first, second] = receiver.batches.map((batch) => batch.receivedAt);
    // The backoff alone would wait 10 to 20 ms.
    expect((second ?? 0) - (first ?? 0)).toBeGreaterThanOrEqual(900);
    await eventually('two requests counted', () => metrics.results, (results) => results.length === 2);
    expect(metrics.results).toEqual(['429', '2xx']);
  });

  it('waits no longer than retryMaxDelayMs, whatever Retry-After asks', async () => {
    receiver.answerNext({ kind: 'status', status: 503, headers: { 'retry-after': '3600' } });
    queueTo(receiver.url, { retryMaxDelayMs: 300 }).offer(failed(0, 1));
    await receiver.untilBatches(2, 5000);
    const [first, second] = receiver.batches.map((batch) => batch.receivedAt);
    expect((second ?? 0) - (first ?? 0)).toBeLessThan(2000);
  });

  it('keeps the batch while the endpoint is down and delivers every event when it is back, repeats only under the same ids', async () => {
    await receiver.down();
    const events = failed(0, 40);
    const queue = queueTo(receiver.url, { maxBatchEvents: 25 });
    queue.offer(events);
    await eventually('attempts that found nobody', () => metrics.results.filter((result) => result === 'unreachable').length, (count) => count >= 3);
    expect(queue.size).toBe(40);
    await receiver.up();
    await receiver.until('every event once', () => receiver.unique.size === 40);
    expect([...receiver.unique.keys()]).toEqual(events.map((event) => webhookEventJson(event).id));
    expect(receiver.accepted.length).toBeGreaterThanOrEqual(40);
    await eventually('the queue empty', () => queue.size, (size) => size === 0);
  });

  it('cuts a request the endpoint never answers at requestTimeoutMs and tries again', async () => {
    receiver.answerNext({ kind: 'stall' });
    queueTo(receiver.url, { requestTimeoutMs: 300 }).offer(failed(0, 2));
    await receiver.until('the events after a stalled attempt', (accepted) => accepted.length === 2);
    await eventually('two requests counted', () => metrics.results, (results) => results.length === 2);
    expect(metrics.results).toEqual(['timeout', '2xx']);
    expect(receiver.batches.map((batch) => batch.answer)).toEqual(['dropped', 200]);
  });

  it('holds its bound while the endpoint stalls: the sender is never kept waiting, further events are dropped and counted, memory stays flat', async () => {
    receiver.answerAll({ kind: 'stall' });
    const queue = queueTo(receiver.url, { maxQueuedEvents: 1000, maxBatchEvents: 100, requestTimeoutMs: 60_000 });
    queue.offer(failed(0, 1000));
    await receiver.untilBatches(1);
    const before = heapUsed();
    let offered = 1000;
    const started = performance.now();
    for (let chunk = 0; chunk < 200; chunk += 1) {
      // Distinct events with a payload of their own: kept, 200,000 of them would take well over 100 MB.
      queue.offer(failed(offered, 1000).map((event) => ({ ...event, delivery: { ...(event as { delivery: object }).delivery, reason: `Reason${'x'.repeat(400)}${offered}` } }) as WebhookEvent));
      offered += 1000;
      expect(queue.size).toBe(1000);
    }
    const offerMs = performance.now() - started;
    const grown = heapUsed() - before;
    expect(metrics.droppedAt('shop', 'warehouse', 'queue_full')).toBe(200_000);
    expect(metrics.queues.get('shop/warehouse')?.()).toBe(1000);
    expect(receiver.stalled).toBe(1);
    expect(grown).toBeLessThan(20 * 1024 * 1024);
    // Offering is a comparison per call: 200,000 events offered in far less time than one request takes.
    expect(offerMs).toBeLessThan(2000);
  });

  it('drops a batch not accepted within retryForMs, counted as retry_expired, and goes on with the next', async () => {
    receiver.answerAll({ kind: 'status', status: 500 });
    const queue = queueTo(receiver.url, { retryForMs: 1000, maxBatchEvents: 5 });
    queue.offer(failed(0, 5));
    await eventually('the batch dropped', () => metrics.droppedAt('shop', 'warehouse', 'retry_expired'), (count) => count === 5, { timeoutMs: 5000 });
    receiver.answerAll({ kind: 'ok' });
    queue.offer(failed(5, 3));
    await receiver.until('the next events', (accepted) => accepted.length === 3);
    expect(receiver.accepted.map((event) => event.data.installation)).toEqual(['inst5', 'inst6', 'inst7']);
  });

  it('on close sends what it holds within the drain time and counts the rest as shutdown', async () => {
    const delivered = queueTo(receiver.url);
    delivered.offer(failed(0, 30));
    await delivered.close(5000);
    expect(receiver.accepted).toHaveLength(30);

    receiver.answerAll({ kind: 'stall' });
    const stuck = queueTo(receiver.url, { requestTimeoutMs: 60_000 });
    stuck.offer(failed(30, 12));
    await receiver.untilBatches(2);
    const started = performance.now();
    await stuck.close(200);
    expect(performance.now() - started).toBeLessThan(2000);
    expect(metrics.droppedAt('shop', 'warehouse', 'shutdown')).toBe(12);
    stuck.offer(failed(42, 2));
    expect(metrics.droppedAt('shop', 'warehouse', 'shutdown')).toBe(14);
  });
});

describe('the webhook HTTP client', () => {
  it('reads at most 4 KiB of an answer and does not wait for the rest', async () => {
    receiver.answerNext({ kind: 'large', bytes: 20 * 1024 * 1024 });
    const http = new WebhookHttp({ ca: undefined, requestTimeoutMs: 10_000 });
    try {
      const started = performance.now();
      const body = '{"events":[]}';
      const answer = await http.post(new URL(receiver.url), { 'herald-signature': webhookSignature(secret, Math.floor(Date.now() / 1000), body) }, body, Date.now());
      // 20 MiB sent 16 KiB every 5 ms would take over 6 s.
      expect(performance.now() - started).toBeLessThan(3000);
      expect(answer).toMatchObject({ kind: 'answered', status: 200 });
      expect(answer.kind === 'answered' && answer.excerpt.length).toBe(4096);
    } finally {
      await http.close();
    }
  });
});

/** The heap after a full collection (V8's gc, reached without a command-line flag). */
function heapUsed(): number {
  setFlagsFromString('--expose-gc');
  const gc = runInNewContext('gc') as () => void;
  gc();
  gc();
  return process.memoryUsage().heapUsed;
}
