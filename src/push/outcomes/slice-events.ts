import type { Clock } from '../../core/clock.ts';
import type { StoredObject } from '../../core/ports/object-store.ts';
import type { DeliveryOutcome, GatewayName } from '../gateways/delivery.ts';
import type { Platform } from '../requests/push-request.ts';
import { deliveryEventVersion, eventOutcomeOf, tokenSuffixOf, type DeliveryEvent } from './delivery-event.ts';
import type { DeliverySlice } from './delivery-events.ts';
import type { SliceLog } from '../delivery-log/slice-log.ts';

/** The device an event is about. */
export interface EventDevice {
  installation: StoredObject | null;
  /** The token or registrationId sent to (for `UnknownInstallation`, the installationId the request listed); absent when there was none. */
  token: unknown;
  platform: Platform;
}

/** What a finished send tells beside its outcome (`TrackedSend`). */
export interface SendRecord {
  readonly attempts: number;
  readonly status: number;
  readonly messageId: string | undefined;
  latencyMs(): number;
}

/** Where a slice's outcomes go as its deliveries end. */
export interface SliceEventTargets {
  /** Whether the events are kept as objects, for `DeliveryEvents` (an outcome stream, webhooks) at the slice's end. */
  keep: boolean;
  /** The slice's delivery log, which encodes each outcome as it comes; null when the log is off. */
  log: SliceLog | null;
}

/** One slice's delivery events, filled as its deliveries end: into the delivery log at once, and kept for `DeliveryEvents` when a sink wants them. */
export class SliceEvents {
  /** The events kept: empty unless `keep`. */
  readonly events: DeliveryEvent[] = [];
  readonly #appId: string;
  readonly #pushId: string;
  readonly #sliceKey: string;
  readonly #clock: Clock;
  readonly #keep: boolean;
  readonly #log: SliceLog | null;

  constructor(slice: Pick<DeliverySlice, 'appId' | 'pushId' | 'sliceKey'>, clock: Clock, targets: SliceEventTargets) {
    this.#appId = slice.appId;
    this.#pushId = slice.pushId;
    this.#sliceKey = slice.sliceKey;
    this.#clock = clock;
    this.#keep = targets.keep;
    this.#log = targets.log;
  }

  /** A device the gateway answered for (or that ran out of attempts, or expired between them). */
  ended(device: EventDevice, gateway: GatewayName, outcome: DeliveryOutcome, send: SendRecord): void {
    const delivered = outcome.kind === 'delivered';
    const unregistered = outcome.kind === 'invalid-token' && outcome.unregistered;
    const status = send.status === 0 ? null : send.status;
    this.#add(device, gateway, eventOutcomeOf(outcome.kind), delivered ? null : outcome.reason, unregistered, status, send.messageId ?? null, send.attempts, send.latencyMs());
  }

  /** A device targeted but not sent to, and why. */
  notSent(device: EventDevice, gateway: GatewayName, reason: string): void {
    this.#add(device, gateway, 'failed', reason, false, null, null, 0, 0);
  }

  // Positional, so that the hot path makes at most one object per device: the event, when kept.
  #add(
    device: EventDevice,
    gateway: GatewayName,
    outcome: DeliveryEvent['outcome'],
    reason: string | null,
    unregistered: boolean,
    status: number | null,
    messageId: string | null,
    attempts: number,
    latencyMs: number,
  ): void {
    const { token } = device;
    const installation = device.installation?.objectId ?? null;
    const sentTo = typeof token === 'string' && token !== '' ? token : null;
    const at = this.#clock.now();
    this.#log?.add(installation, sentTo, device.platform, gateway, outcome, reason, unregistered, status, messageId, attempts, latencyMs, at);
    if (!this.#keep) return;
    this.events.push({
      version: deliveryEventVersion,
      appId: this.#appId,
      pushId: this.#pushId,
      sliceKey: this.#sliceKey,
      installation,
      tokenSuffix: sentTo === null ? null : tokenSuffixOf(sentTo),
      platform: device.platform,
      gateway,
      outcome,
      reason,
      unregistered,
      status,
      messageId,
      attempts,
      latencyMs,
      at,
    });
  }
}
