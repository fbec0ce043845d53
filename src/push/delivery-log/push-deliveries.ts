import type { Caller } from '../../accounts/account-deps.ts';
import { loggedOutcomes, type LoggedOutcome, type SliceSummary } from '../../core/ports/delivery-log-store.ts';
import { ErrorCode, fail, HeraldError } from '../../core/errors.ts';
import { deliveryEventJson, type DeliveryEvent, type DeliveryEventJson } from '../outcomes/delivery-event.ts';
import { decodePushCursor, encodePushCursor, type PushCursor } from './delivery-cursor.ts';
import { readDeliveryFilter, type DeliveryFilter } from './delivery-filter.ts';
import type { DeliveryLogDeps } from './delivery-log-deps.ts';
import { decodeEntries } from './entries-codec.ts';
import { namedPushes } from './named-pushes.ts';

/** A page of a listing: the entries, and the cursor of the next page (null after the last). */
export interface DeliveryPage {
  results: DeliveryEventJson[];
  nextCursor: string | null;
}

/** Slice rows read for one page at most: a page of a rare reason in a vast push ends early, with a cursor, rather than reading it all. */
const maxSliceReads = 500;
const summaryPage = 200;

export function requireMaster(caller: Caller): void {
  if (!caller.master) throw new HeraldError(ErrorCode.forbidden, 'The delivery log needs the master key.', { status: 403 });
}

/**
 * `GET /1.1/notifications/<id>/deliveries`: the delivery log of the pushes
 * `id` names (`namedPushes`), in a stable order (push, slice, outcome, entry),
 * `limit` entries a page, filtered by outcome and reason. A page may hold
 * fewer entries than `limit` and still have a `nextCursor`: follow it until
 * it is null.
 */
export async function listPushDeliveries(deps: DeliveryLogDeps, caller: Caller, id: string, params: Readonly<Record<string, unknown>>): Promise<DeliveryPage> {
  requireMaster(caller);
  const filter = readDeliveryFilter(params);
  const appId = caller.app.config.id;
  const pushes = await namedPushes(deps, appId, id);
  const cursor = filter.cursor === null ? null : decodePushCursor(filter.cursor);
  let first = 0;
  if (cursor !== null) {
    first = pushes.findIndex((push) => push.objectId === cursor.pushId);
    if (first < 0) fail(ErrorCode.internal, 'cursor is not one this listing answered: pass the nextCursor of the page before, unchanged');
  }
  const page = new PageBuilder(appId, filter);
  for (let index = first; index < pushes.length && !page.over; index += 1) {
    const pushId = (pushes[index] as { objectId: string }).objectId;
    await page.readPush(deps, pushId, cursor?.pushId === pushId ? cursor : null);
  }
  return page.answer();
}

/** Fills one page, slice by slice, and knows where the next one starts. */
class PageBuilder {
  readonly results: DeliveryEventJson[] = [];
  over = false;
  #next: PushCursor | null = null;
  #reads = 0;
  readonly #appId: string;
  readonly #filter: DeliveryFilter;
  /** Outcomes read: a reason filter leaves out delivered entries, which have none. */
  readonly #outcomes: readonly LoggedOutcome[];

  constructor(appId: string, filter: DeliveryFilter) {
    this.#appId = appId;
    this.#filter = filter;
    this.#outcomes = filter.reason === null ? filter.outcomes : filter.outcomes.filter((outcome) => outcome !== 'delivered');
  }

  async readPush(deps: DeliveryLogDeps, pushId: string, from: PushCursor | null): Promise<void> {
    if (this.#outcomes.length === 0) return;
    const log = deps.store.deliveries;
    if (from !== null) await this.#readSlice(deps, pushId, from.sliceKey, null, from);
    let after = from?.sliceKey ?? null;
    while (!this.over) {
      const summaries = await log.listSlices(this.#appId, pushId, after, summaryPage);
      for (const summary of summaries) {
        if (this.over) return;
        await this.#readSlice(deps, pushId, summary.sliceKey, summary, null);
      }
      if (summaries.length < summaryPage) return;
      after = summaries.at(-1)?.sliceKey ?? null;
    }
  }

  answer(): DeliveryPage {
    return { results: this.results, nextCursor: this.#next === null ? null : encodePushCursor(this.#next) };
  }

  async #readSlice(deps: DeliveryLogDeps, pushId: string, sliceKey: string, summary: SliceSummary | null, from: PushCursor | null): Promise<void> {
    // A slice whose counts say it holds none of the outcomes asked for is not read.
    const outcomes = this.#outcomes.filter((outcome) => summary === null || summary.counts[outcome] > 0);
    if (outcomes.length === 0) return;
    if (this.#reads >= maxSliceReads) {
      this.#stop({ pushId, sliceKey, outcome: outcomes[0] as LoggedOutcome, index: 0 });
      return;
    }
    this.#reads += 1;
    const read = await deps.store.deliveries.readSlice(this.#appId, pushId, sliceKey, outcomes);
    if (read === null) return;
    const row = { appId: this.#appId, pushId, sliceKey };
    for (const outcome of outcomes) {
      if (from !== null && loggedOutcomes.indexOf(outcome) < loggedOutcomes.indexOf(from.outcome)) continue;
      const events = decodeEntries(read.entries[outcome], row);
      const start = from !== null && outcome === from.outcome ? from.index : 0;
      for (let index = start; index < events.length; index += 1) {
        const event = events[index] as DeliveryEvent;
        if (this.#filter.reason !== null && event.reason !== this.#filter.reason) continue;
        this.results.push(deliveryEventJson(event));
        if (this.results.length >= this.#filter.limit) {
          this.#stop({ pushId, sliceKey, outcome, index: index + 1 });
          return;
        }
      }
    }
  }

  #stop(next: PushCursor): void {
    this.over = true;
    this.#next = next;
  }
}
