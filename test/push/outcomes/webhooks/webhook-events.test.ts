import { describe, expect, it } from 'vitest';
import { systemClock } from '../../../../src/core/clock.ts';
import { silentLogger } from '../../../../src/core/logger.ts';
import type { PushDoc } from '../../../../src/core/ports/push-store.ts';
import type { WebhookEventType } from '../../../../src/config/webhooks-schema.ts';
import { PushDoneWatch } from '../../../../src/push/outcomes/webhooks/push-done-watch.ts';
import { WebhookDeliveryEvents } from '../../../../src/push/outcomes/webhooks/webhook-delivery-events.ts';
import { webhookEventId, webhookEventJson, type WebhookEvent } from '../../../../src/push/outcomes/webhooks/webhook-event.ts';
import { webhookSignature } from '../../../../src/push/outcomes/webhooks/webhook-signature.ts';
import { deliveryEvent } from '../support/outcome-fixtures.ts';

/** The part of `Webhooks` the sinks use, keeping what they emit. */
function recordingWebhooks(interest: Record<string, WebhookEventType[]>) {
  const emitted: { appId: string; events: readonly WebhookEvent[] }[] = [];
  return {
    emitted,
    interestOf: (appId: string) => new Set(interest[appId] ?? []),
    emit: (appId: string, events: readonly WebhookEvent[]) => void emitted.push({ appId, events }),
  };
}

const slice = { appId: 'shop', pushId: 'p1', sliceKey: 's0/0', endedAt: 0 };
const delivered = deliveryEvent(1, { outcome: 'delivered', reason: null, status: 200 });
const badToken = deliveryEvent(2);
const unregistered = deliveryEvent(3, { reason: 'Unregistered', unregistered: true, status: 410 });
const unregisteredTokenOnly = deliveryEvent(4, { reason: 'Unregistered', unregistered: true, status: 410, installation: null });
const notSent = deliveryEvent(5, { outcome: 'failed', reason: 'NoApnsCredentials', status: null, attempts: 0 });

describe('webhook events from a slice', () => {
  it('makes delivery.failed for each device not delivered and installation.removed for an unregistered installation', async () => {
    const webhooks = recordingWebhooks({ shop: ['delivery.failed', 'installation.removed'] });
    await new WebhookDeliveryEvents(webhooks).record(slice, [delivered, badToken, unregistered, unregisteredTokenOnly, notSent]);
    expect(webhooks.emitted).toHaveLength(1);
    expect(webhooks.emitted[0]?.events.map((event) => [event.type, event.type === 'push.done' ? null : event.delivery.installation])).toEqual([
      ['delivery.failed', 'inst2'],
      ['delivery.failed', 'inst3'],
      ['installation.removed', 'inst3'],
      ['delivery.failed', null],
      ['delivery.failed', 'inst5'],
    ]);
  });

  it('makes delivery.succeeded only for an app with an endpoint that asks for it', async () => {
    const webhooks = recordingWebhooks({ shop: ['delivery.succeeded'] });
    await new WebhookDeliveryEvents(webhooks).record(slice, [delivered, badToken]);
    expect(webhooks.emitted[0]?.events.map((event) => event.type)).toEqual(['delivery.succeeded']);
  });

  it('makes nothing for an app without endpoints, and answers at once', async () => {
    const webhooks = recordingWebhooks({ other: ['delivery.failed'] });
    await new WebhookDeliveryEvents(webhooks).record(slice, [badToken]);
    expect(webhooks.emitted).toEqual([]);
  });

  it('gives each event an id that is the same when a redone slice tells it again, and differs by type', () => {
    const failedEvent: WebhookEvent = { type: 'delivery.failed', delivery: unregistered };
    const removed: WebhookEvent = { type: 'installation.removed', delivery: unregistered };
    const again: WebhookEvent = { type: 'delivery.failed', delivery: { ...unregistered, at: unregistered.at + 5000, attempts: 2 } };
    expect(webhookEventId(failedEvent)).toBe('delivery.failed:p1/s0/0/inst3');
    expect(webhookEventId(again)).toBe(webhookEventId(failedEvent));
    expect(webhookEventId(removed)).not.toBe(webhookEventId(failedEvent));
    expect(webhookEventJson(failedEvent)).toMatchObject({ id: 'delivery.failed:p1/s0/0/inst3', type: 'delivery.failed', data: { installation: 'inst3', reason: 'Unregistered', version: 1 } });
  });
});

describe('the webhook signature', () => {
  it('is HMAC-SHA256 of "<t>.<body>" under the secret, with the time', () => {
    // Worked out apart: printf '1700000000.{"a":1}' | openssl dgst -sha256 -hmac 'secret-0123456789'
    expect(webhookSignature('secret-0123456789', 1_700_000_000, '{"a":1}')).toBe('t=1700000000,v1=692511b180bbcd561410894fd2bedac27a99690e45169490ea808f433b5d0097');
    expect(webhookSignature('secret-0123456789', 1_700_000_001, '{"a":1}')).not.toBe(webhookSignature('secret-0123456789', 1_700_000_000, '{"a":1}'));
    expect(webhookSignature('secret-0123456789', 1_700_000_000, '{"a":2}')).not.toBe(webhookSignature('secret-0123456789', 1_700_000_000, '{"a":1}'));
  });
});

describe('push.done', () => {
  function watchOver(records: Map<string, PushDoc | Error>, interest: WebhookEventType[] = ['push.done']) {
    const webhooks = recordingWebhooks({ shop: interest });
    const reads: string[] = [];
    const watch = new PushDoneWatch({
      pushes: {
        get: (_appId, pushId) => {
          reads.push(pushId);
          const found = records.get(pushId);
          return found instanceof Error ? Promise.reject(found) : Promise.resolve(found ?? null);
        },
      },
      webhooks,
      clock: systemClock,
      logger: silentLogger(),
      retryDelaysMs: [5, 5],
    });
    return { watch, webhooks, reads };
  }

  const record = (objectId: string, status: string): PushDoc => ({ objectId, createdAt: '2026-11-27T12:00:00.000Z', updatedAt: '2026-11-27T12:00:01.000Z', status, expectedTasks: 2, _spec: {}, devices: 3, successes: 2, errors: 1 });

  it('sends the final record, as clients see it, of a push that reads done or Error', async () => {
    const { watch, webhooks } = watchOver(new Map([['p1', record('p1', 'done')], ['p2', record('p2', 'Error')], ['p3', record('p3', 'in-queue')]]));
    watch.mayHaveEnded('shop', 'p1');
    watch.mayHaveEnded('shop', 'p2');
    watch.mayHaveEnded('shop', 'p3');
    await watch.settled();
    const sent = webhooks.emitted.flatMap((entry) => entry.events).map(webhookEventJson);
    expect(sent.map((event) => event.id)).toEqual(['push.done:p1', 'push.done:p2']);
    expect(sent[0]?.data).toEqual({ objectId: 'p1', createdAt: '2026-11-27T12:00:00.000Z', updatedAt: '2026-11-27T12:00:01.000Z', status: 'done', devices: 3, successes: 2, errors: 1 });
  });

  it('reads a push once for calls that come while its read waits, and not at all for an app without push.done', async () => {
    const { watch, reads } = watchOver(new Map([['p1', record('p1', 'done')]]));
    for (let index = 0; index < 10; index += 1) for (const pushId of ['a', 'b', 'c', 'd', 'p1']) watch.mayHaveEnded('shop', pushId);
    await watch.settled();
    // Four reads run at once; p1, queued behind them, is read once.
    expect(reads.filter((pushId) => pushId === 'p1')).toHaveLength(1);
    const none = watchOver(new Map([['p1', record('p1', 'done')]]), ['delivery.failed']);
    none.watch.mayHaveEnded('shop', 'p1');
    await none.watch.settled();
    expect(none.reads).toEqual([]);
  });

  it('reads a record that could not be read again, and sends its push.done when it can', async () => {
    const records = new Map<string, PushDoc | Error>([['p1', new Error('store away')]]);
    const { watch, webhooks, reads } = watchOver(records);
    watch.mayHaveEnded('shop', 'p1');
    records.set('p1', record('p1', 'done'));
    await watch.settled();
    expect(reads).toEqual(['p1', 'p1']);
    expect(webhooks.emitted).toHaveLength(1);
  });
});

