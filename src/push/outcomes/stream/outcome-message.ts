import type { OutgoingMessage } from '../../../core/ports/bus.ts';
import { deliveryEventId, deliveryEventJson, type DeliveryEvent } from '../delivery-event.ts';

/**
 * The key of a delivery event on the outcome stream: the installation's
 * objectId, so that one device's events stay on one partition, in order; for
 * a device a `/push/devices` request named by its token alone, `~` and the
 * token's last 8 characters (the event carries no more of the token).
 */
export function outcomeKey(event: DeliveryEvent): string {
  return event.installation ?? `~${event.tokenSuffix ?? ''}`;
}

/**
 * A delivery event as a message of the outcome stream: its key, and its
 * JSON form (`deliveryEventJson`, `version` 1) after the event's `id`
 * (`deliveryEventId`), the same for the event a redone slice produces
 * again (docs/outcome-stream.md).
 */
export function outcomeMessage(event: DeliveryEvent): OutgoingMessage {
  return { key: outcomeKey(event), value: JSON.stringify({ id: deliveryEventId(event), ...deliveryEventJson(event) }) };
}
