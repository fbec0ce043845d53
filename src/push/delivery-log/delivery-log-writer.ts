import type { DeliveryLogStore, LoggedSlice } from '../../core/ports/delivery-log-store.ts';
import type { DeliveryEvent } from '../outcomes/delivery-event.ts';
import type { DeliverySlice } from '../outcomes/delivery-events.ts';
import type { DeliveryLogPolicy } from './delivery-log-policy.ts';
import { addEvents } from './entries-codec.ts';
import { SliceLog } from './slice-log.ts';

export interface DeliveryLogWriterDeps {
  store: Pick<DeliveryLogStore, 'writeSlice'>;
  /** The app's policy; apps the config does not name get the defaults. */
  policyOf(appId: string): DeliveryLogPolicy;
}

/**
 * Where the sender opens each slice's part of the delivery log: one write
 * of the slice's rows (its entries by outcome, and a range row per
 * installation bucket) when the slice ends, never a write per device.
 */
export class DeliveryLogWriter {
  readonly #deps: DeliveryLogWriterDeps;

  constructor(deps: DeliveryLogWriterDeps) {
    this.#deps = deps;
  }

  /** The slice's log, or null when the app's policy writes none. */
  open(slice: Pick<DeliverySlice, 'appId' | 'pushId' | 'sliceKey'>): SliceLog | null {
    const policy = this.#deps.policyOf(slice.appId);
    return policy.enabled ? new SliceLog(slice, policy, this.#deps.store) : null;
  }
}

/** The rows of one slice's events under `policy`. */
export function loggedSlice(slice: DeliverySlice, events: readonly DeliveryEvent[], policy: DeliveryLogPolicy): LoggedSlice {
  const log = new SliceLog(slice, policy, { writeSlice: () => Promise.resolve() });
  addEvents(log, events);
  return log.rows(slice.endedAt);
}
