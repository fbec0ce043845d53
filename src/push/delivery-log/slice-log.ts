import type { DeliveryLogStore, LoggedOutcome, LoggedSlice } from '../../core/ports/delivery-log-store.ts';
import { fnv1a } from '../../core/fnv1a.ts';
import type { GatewayName } from '../gateways/delivery.ts';
import { tokenSuffixOf } from '../outcomes/delivery-event.ts';
import type { DeliverySlice } from '../outcomes/delivery-events.ts';
import type { Platform } from '../requests/push-request.ts';
import type { DeliveryLogPolicy } from './delivery-log-policy.ts';
import { EntryEncoder } from './entries-codec.ts';
import { InstallationRanges } from './installation-ranges.ts';
import { sampleDraw } from './installation-filter.ts';

/**
 * One slice's part of the delivery log, filled as its devices' outcomes
 * become known and written once, whole, when the slice ends: each entry is
 * encoded when it is added, so nothing per device waits for the end.
 * Devices not delivered are always kept; delivered ones all, a sample, or
 * none, as the app's policy says. A sample is drawn from the push and the
 * device, so a redone slice keeps the same devices.
 */
export class SliceLog {
  readonly #slice: Pick<DeliverySlice, 'appId' | 'pushId' | 'sliceKey'>;
  readonly #policy: DeliveryLogPolicy;
  readonly #store: Pick<DeliveryLogStore, 'writeSlice'>;
  readonly #keepSuccess: (id: string) => boolean;
  readonly #entries: Record<LoggedOutcome, EntryEncoder> = {
    failed: new EntryEncoder(),
    invalidToken: new EntryEncoder(),
    delivered: new EntryEncoder(),
  };
  readonly #counts = { failed: 0, invalidToken: 0, delivered: 0 };
  readonly #ranges = new InstallationRanges();

  constructor(slice: Pick<DeliverySlice, 'appId' | 'pushId' | 'sliceKey'>, policy: DeliveryLogPolicy, store: Pick<DeliveryLogStore, 'writeSlice'>) {
    this.#slice = slice;
    this.#policy = policy;
    this.#store = store;
    this.#keepSuccess = successFilter(slice.pushId, policy);
  }

  /**
   * One device's final outcome, in `DeliveryEvent`'s fields; `token` is the
   * token or registrationId sent to, or its suffix (the suffix is kept).
   * Positional: the hot path makes no object per device.
   */
  add(
    installation: string | null,
    token: string | null,
    platform: Platform,
    gateway: GatewayName,
    outcome: LoggedOutcome,
    reason: string | null,
    unregistered: boolean,
    status: number | null,
    messageId: string | null,
    attempts: number,
    latencyMs: number,
    at: number,
  ): void {
    this.#counts[outcome] += 1;
    if (outcome === 'delivered' && !this.#keepSuccess(installation ?? (token === null ? '' : tokenSuffixOf(token)))) return;
    this.#entries[outcome].add(installation, token, platform, gateway, outcome, reason, unregistered, status, messageId, attempts, latencyMs, at);
    if (installation !== null) this.#ranges.add(installation);
  }

  /** The devices added so far, kept or not. */
  get size(): number {
    const counts = this.#counts;
    return counts.failed + counts.invalidToken + counts.delivered;
  }

  /** The slice's rows, as ended at `endedAt`. */
  rows(endedAt: number): LoggedSlice {
    const entries = this.#entries;
    return {
      pushId: this.#slice.pushId,
      sliceKey: this.#slice.sliceKey,
      writtenAt: endedAt,
      expiresAt: endedAt + this.#policy.retentionMs,
      counts: { ...this.#counts },
      entries: { failed: entries.failed.finish(), invalidToken: entries.invalidToken.finish(), delivered: entries.delivered.finish() },
      ranges: this.#ranges.ranges(),
    };
  }

  /** Writes the slice's rows, replacing those of an earlier run of it; nothing for a slice that targeted no device. */
  async write(endedAt: number): Promise<void> {
    if (this.size === 0) return;
    await this.#store.writeSlice(this.#slice.appId, this.rows(endedAt));
  }
}

function successFilter(pushId: string, policy: DeliveryLogPolicy): (id: string) => boolean {
  switch (policy.successes) {
    case 'all':
      return () => true;
    case 'off':
      return () => false;
    case 'sampled': {
      const seed = fnv1a(pushId);
      const rate = policy.sampleRate;
      return (id) => sampleDraw(id, seed) < rate;
    }
  }
}
