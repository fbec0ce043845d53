import { isoTime } from '../../core/clock.ts';
import type { DeliveryOutcome, GatewayName } from '../gateways/delivery.ts';
import type { Platform } from '../requests/push-request.ts';

/**
 * The version of `DeliveryEvent` and of its JSON form. A field added keeps
 * the version (consumers ignore what they do not know); a field removed,
 * renamed or given another meaning makes a new one (docs/delivery-log.md,
 * "The delivery event").
 */
export const deliveryEventVersion = 1;

/** A device's final outcome as the delivery log, its queries and the outcome stream name it. */
export const deliveryEventOutcomes = ['delivered', 'invalidToken', 'failed'] as const;

export type DeliveryEventOutcome = (typeof deliveryEventOutcomes)[number];

/**
 * The final outcome of one push to one targeted device: what the gateway
 * answered last, after every retry, or why Herald did not send at all. One
 * event per device a slice targeted, made where the sender learns the final
 * outcome (`DeviceDeliveries`), handed over a slice at a time
 * (`DeliveryEvents.record`).
 *
 * A device the push targeted but never reached a gateway (no credentials, no
 * token, an unsupported vendor, a silent push to a maker that cannot carry
 * one, an expired push) is `failed` with its reason and `attempts: 0`.
 * Devices the audience rules left out (no match, idle, another platform) are
 * not targeted and make no event: `GET /1.1/notifications/<id>/explain`
 * says why for one device.
 */
export interface DeliveryEvent {
  readonly version: typeof deliveryEventVersion;
  readonly appId: string;
  /** The push's objectId, as `POST /1.1/push` answered it. */
  readonly pushId: string;
  /** The slice the device was sent in (`<taskId>/<slice>`); a redone slice makes its events again under the same key. */
  readonly sliceKey: string;
  /** The installation's objectId; null for a device a `/push/devices` request named by its token alone. */
  readonly installation: string | null;
  /** The last 8 characters of the device token or registrationId sent to, to tell devices apart without carrying the token; null when there was none. */
  readonly tokenSuffix: string | null;
  readonly platform: Platform;
  /** The gateway the device goes through: `apns`, `fcm`, or a phone maker's (`hms`, `honor`, `xiaomi`, `oppo`, `vivo`, `meizu`). */
  readonly gateway: GatewayName;
  readonly outcome: DeliveryEventOutcome;
  /** The documented reason (docs/push-engine.md, "Reasons"); null when delivered. */
  readonly reason: string | null;
  /** The gateway reported the token unregistered, and Herald removes the installation (unless the device saved it again after the gateway's time). */
  readonly unregistered: boolean;
  /** The HTTP status of the gateway's last answer for this device; null when no answer came or nothing was sent, or a phone maker answered for a batch. */
  readonly status: number | null;
  /** The gateway's id of the message where it gives one per device: APNs's `apns-id`; null otherwise. */
  readonly messageId: string | null;
  /** Sends to the gateway, the first included; 0 when the device was not sent to. */
  readonly attempts: number;
  /** From the first send to the final answer, ms (0.1 ms steps); 0 when not sent. */
  readonly latencyMs: number;
  /** When the final outcome was known, Unix ms. */
  readonly at: number;
}

/** The JSON form of a `DeliveryEvent`: the delivery log's entries and the outcome stream's messages. `at` is ISO 8601. */
export interface DeliveryEventJson {
  version: number;
  appId: string;
  pushId: string;
  sliceKey: string;
  installation: string | null;
  tokenSuffix: string | null;
  platform: Platform;
  gateway: GatewayName;
  outcome: DeliveryEventOutcome;
  reason: string | null;
  unregistered: boolean;
  status: number | null;
  messageId: string | null;
  attempts: number;
  latencyMs: number;
  at: string;
}

export function deliveryEventJson(event: DeliveryEvent): DeliveryEventJson {
  return {
    version: event.version,
    appId: event.appId,
    pushId: event.pushId,
    sliceKey: event.sliceKey,
    installation: event.installation,
    tokenSuffix: event.tokenSuffix,
    platform: event.platform,
    gateway: event.gateway,
    outcome: event.outcome,
    reason: event.reason,
    unregistered: event.unregistered,
    status: event.status,
    messageId: event.messageId,
    attempts: event.attempts,
    latencyMs: event.latencyMs,
    at: isoTime(event.at),
  };
}

/**
 * A stable id of the event for deduplication: the same for the event a
 * redone slice makes again for the same device (push, slice, and the
 * installation, or the token's suffix for a device without one).
 */
export function deliveryEventId(event: Pick<DeliveryEvent, 'pushId' | 'sliceKey' | 'installation' | 'tokenSuffix'>): string {
  return `${event.pushId}/${event.sliceKey}/${event.installation ?? `~${event.tokenSuffix ?? ''}`}`;
}

/** The event outcome of a gateway's final outcome: a `retry` that ran out of attempts has become `failed` by then. */
export function eventOutcomeOf(kind: DeliveryOutcome['kind']): DeliveryEventOutcome {
  return kind === 'delivered' ? 'delivered' : kind === 'invalid-token' ? 'invalidToken' : 'failed';
}

/** The last 8 characters of a token (the whole of a shorter one). */
export function tokenSuffixOf(token: string): string {
  return token.length <= 8 ? token : token.slice(-8);
}
