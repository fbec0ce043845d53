import { isoTime, type Clock } from '../core/clock.ts';
import type { Logger } from '../core/logger.ts';
import type { Store } from '../core/ports/object-store.ts';
import { RecordField } from '../push/records/push-record.ts';
import { reqIdWindowMs } from '../push/submit/req-id-claim.ts';
import { markAccepted } from '../push/submit/mark-accepted.ts';

/**
 * How long a record may stay unaccepted before the sweep settles it: twice
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

export const unacceptedMessage = 'The push was not accepted: the API node handling it stopped before the push was on its way.';

/**
 * Settles push records whose API node died between writing them and
 * publishing (or scheduling) their push: they carry `_accepted: false`
 * (see submitPush) and would read `in-queue` or `scheduled` until they
 * expire. The client got no 201 for them, so they are not sent but marked
 * `Error`, with the reason; a scheduled one whose entry did get written is
 * on its way after all and is only flagged accepted.
 *
 * Records are read newest first and only within the lookback, so a sweep
 * costs the last hours' pushes, not the retention's.
 */
export class UnacceptedPushes {
  readonly #deps: UnacceptedPushesDeps;

  constructor(deps: UnacceptedPushesDeps) {
    this.#deps = deps;
  }

  /** Answers how many records it settled as `Error`. */
  async settle(signal: AbortSignal): Promise<number> {
    const { store, clock, logger } = this.#deps;
    const now = clock.now();
    let settled = 0;
    for (const appId of this.#deps.appIds()) {
      for await (const record of store.pushes.scan(appId)) {
        if (signal.aborted) return settled;
        const createdAt = Date.parse(String(record.createdAt));
        if (createdAt > now - unacceptedGraceMs) continue;
        if (createdAt < now - this.#deps.lookbackMs) break;
        if (record[RecordField.accepted] !== false || record.status === 'Error' || typeof record[RecordField.expectedTasks] === 'number') continue;
        const scheduledId = record[RecordField.scheduledId];
        if (typeof scheduledId === 'number' && (await store.scheduled.get(appId, scheduledId)) !== null) {
          await markAccepted({ store, logger, clock }, appId, record);
          continue;
        }
        const fields = { status: 'Error', [RecordField.errorMessage]: unacceptedMessage, [RecordField.expectedTasks]: 0 };
        if (await store.pushes.setFields(appId, record.objectId, fields, isoTime(now))) settled += 1;
      }
    }
    if (settled > 0) logger.warn({ settled }, 'settled push records left unaccepted by an API node that stopped');
    return settled;
  }
}
