import { isoTime } from '../../../core/clock.ts';
import type { WebhookEventType } from '../../../config/webhooks-schema.ts';
import { deliveryEventId, deliveryEventJson, type DeliveryEvent } from '../delivery-event.ts';

/**
 * One event waiting for an endpoint: a device's delivery event under the
 * type it is sent as, or a push's final record. Kept as the objects the
 * sender made (one delivery event may wait for several endpoints); made JSON
 * only when its batch goes.
 */
export type WebhookEvent =
  | { readonly type: 'delivery.failed' | 'delivery.succeeded' | 'installation.removed'; readonly delivery: DeliveryEvent }
  | { readonly type: 'push.done'; readonly pushId: string; readonly at: number; readonly record: Readonly<Record<string, unknown>> };

/** An event as the body of a POST carries it (docs/webhooks.md, "Events"). */
export interface WebhookEventJson {
  id: string;
  type: WebhookEventType;
  createdAt: string;
  data: unknown;
}

/**
 * The event's id, the same whenever the same thing is told again (a retried
 * batch, a redone slice, two senders that both saw a push end): the type and
 * what it is about. A receiver that keeps the ids it has seen for a day
 * drops every repeat.
 */
export function webhookEventId(event: WebhookEvent): string {
  return event.type === 'push.done' ? `push.done:${event.pushId}` : `${event.type}:${deliveryEventId(event.delivery)}`;
}

export function webhookEventJson(event: WebhookEvent): WebhookEventJson {
  if (event.type === 'push.done') return { id: webhookEventId(event), type: event.type, createdAt: isoTime(event.at), data: event.record };
  return { id: webhookEventId(event), type: event.type, createdAt: isoTime(event.delivery.at), data: deliveryEventJson(event.delivery) };
}

/** The version of a batch's body; a field added keeps it, one removed or changed makes a new one. */
export const webhookBodyVersion = 1;

/** A batch's body: the app, the endpoint's name and the events, oldest first. */
export function webhookBody(appId: string, endpoint: string, events: readonly WebhookEvent[]): string {
  return JSON.stringify({ version: webhookBodyVersion, app: appId, endpoint, events: events.map(webhookEventJson) });
}
