import type { DeliveryLogStore, InstallationRange, LoggedOutcome, LoggedSlice } from '../../core/ports/delivery-log-store.ts';
import type { DeliveryEvent } from '../outcomes/delivery-event.ts';
import type { DeliveryEvents, DeliverySlice } from '../outcomes/delivery-events.ts';
import type { DeliveryLogPolicy } from './delivery-log-policy.ts';
import { encodeEntries } from './entries-codec.ts';
import { fnv1a } from '../../core/fnv1a.ts';
import { deliveryLogBucket, installationFilter, sampleDraw } from './installation-filter.ts';

export interface DeliveryLogWriterDeps {
  store: Pick<DeliveryLogStore, 'writeSlice'>;
  /** The app's policy; apps the config does not name get the defaults. */
  policyOf(appId: string): DeliveryLogPolicy;
}

/**
 * The delivery log's side of `DeliveryEvents`: each slice's events become
 * one write of the slice's rows (its entries by outcome, and a range row
 * per installation bucket), never a write per device. Devices not
 * delivered are always kept; delivered ones all, a sample, or none, as the
 * app's policy says. A sample is drawn from the push and the device, so a
 * redone slice keeps the same devices.
 */
export class DeliveryLogWriter implements DeliveryEvents {
  readonly #deps: DeliveryLogWriterDeps;

  constructor(deps: DeliveryLogWriterDeps) {
    this.#deps = deps;
  }

  async record(slice: DeliverySlice, events: readonly DeliveryEvent[]): Promise<void> {
    if (events.length === 0) return;
    const policy = this.#deps.policyOf(slice.appId);
    if (!policy.enabled) return;
    await this.#deps.store.writeSlice(slice.appId, loggedSlice(slice, events, policy));
  }
}

/** The rows of one slice's events under `policy`. */
export function loggedSlice(slice: DeliverySlice, events: readonly DeliveryEvent[], policy: DeliveryLogPolicy): LoggedSlice {
  const kept: Record<LoggedOutcome, DeliveryEvent[]> = { failed: [], invalidToken: [], delivered: [] };
  const counts = { failed: 0, invalidToken: 0, delivered: 0 };
  const keepSuccess = successFilter(slice.pushId, policy);
  for (const event of events) {
    counts[event.outcome] += 1;
    if (event.outcome !== 'delivered' || keepSuccess(event)) kept[event.outcome].push(event);
  }
  return {
    pushId: slice.pushId,
    sliceKey: slice.sliceKey,
    writtenAt: slice.endedAt,
    expiresAt: slice.endedAt + policy.retentionMs,
    counts,
    entries: { failed: encodeEntries(kept.failed), invalidToken: encodeEntries(kept.invalidToken), delivered: encodeEntries(kept.delivered) },
    ranges: installationRanges([kept.failed, kept.invalidToken, kept.delivered]),
  };
}

function successFilter(pushId: string, policy: DeliveryLogPolicy): (event: DeliveryEvent) => boolean {
  switch (policy.successes) {
    case 'all':
      return () => true;
    case 'off':
      return () => false;
    case 'sampled': {
      const seed = fnv1a(pushId);
      const rate = policy.sampleRate;
      return (event) => sampleDraw(event.installation ?? event.tokenSuffix ?? '', seed) < rate;
    }
  }
}

/** One range per installation bucket the kept entries of installations fall in. */
function installationRanges(groups: readonly (readonly DeliveryEvent[])[]): InstallationRange[] {
  const byBucket = new Map<number, string[]>();
  for (const group of groups) {
    for (const { installation } of group) {
      if (installation === null) continue;
      const bucket = deliveryLogBucket(installation);
      let ids = byBucket.get(bucket);
      if (ids === undefined) byBucket.set(bucket, (ids = []));
      ids.push(installation);
    }
  }
  const ranges: InstallationRange[] = [];
  for (const [bucket, ids] of byBucket) {
    let low = ids[0] as string;
    let high = low;
    for (const id of ids) {
      if (id < low) low = id;
      if (id > high) high = id;
    }
    ranges.push({ bucket, low, high, filter: installationFilter(ids) });
  }
  return ranges;
}
