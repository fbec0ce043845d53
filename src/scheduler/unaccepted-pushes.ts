import type { Clock } from '../core/clock.ts';
import type { Logger } from '../core/logger.ts';
import type { Store } from '../core/ports/object-store.ts';
import { isAccepted, RecordField } from '../push/records/push-record.ts';
import { reqIdWindowMs } from '../push/submit/req-id-claim.ts';
import { markAccepted } from '../push/submit/mark-accepted.ts';

/**
 * How long a record may stay unaccepted before the sweep removes it: twice
 * the `req_id` window, so a client's resend can still put it on its way.
 */
export const unacceptedGraceMs = 2 * reqIdWindowMs;

export interface UnacceptedPushesDeps {
  store: Store;
  clock: Clock;
  logger: Logger;
  appIds(): string[];
  /** How far back a sweep looks: more than the time between two sweeps plus the grace, so every record is seen once past its grace. */
  lookbackMs: number;
}

/**
 * Removes push records whose API node died between writing them and
 * publishing (or scheduling) their push: they carry `_accepted: false`
 * (see submitPush) and no reader shows them (`isAccepted`). The client got
 * no 201 for them and has most likely sent the push again, under the same
 * notification_id: such a record is not sent, and is not kept either (kept
 * as `Error`, it would turn its notification_id's merged status to `Error`
 * although the resend went out). A scheduled one whose entry did get
 * written is on its way after all and is only flagged accepted.
 *
 * Records are read newest first and only within the lookback, so a sweep
 * costs the last hours' pushes, not the retention's.
 */
export class UnacceptedPushes {
  readonly #deps: UnacceptedPushesDeps;

  constructor(deps: UnacceptedPushesDeps) {
    this.#deps = deps;
  }

  /** Answers how many records it removed. */
  async remove(signal: AbortSignal): Promise<number> {
    const { store, clock, logger } = this.#deps;
    const now = clock.now();
    let removed = 0;
    for (const appId of this.#deps.appIds()) {
      for await (const record of store.pushes.scan(appId)) {
        if (signal.aborted) return removed;
        const createdAt = Date.parse(String(record.createdAt));
        if (createdAt > now - unacceptedGraceMs) continue;
        if (createdAt < now - this.#deps.lookbackMs) break;
        if (isAccepted(record)) continue;
        const scheduledId = record[RecordField.scheduledId];
        if (typeof scheduledId === 'number' && (await store.scheduled.get(appId, scheduledId)) !== null) {
          await markAccepted({ store, logger, clock }, appId, record);
          continue;
        }
        if (await store.pushes.delete(appId, record.objectId)) removed += 1;
      }
    }
    if (removed > 0) logger.warn({ removed }, 'removed push records left unaccepted by an API node that stopped');
    return removed;
  }
}
