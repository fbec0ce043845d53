import { DuplicateValueError } from '../../core/errors.ts';
import type { PushDeps } from '../push-deps.ts';
import { encodeMessage } from '../push-messages.ts';
import { RecordField } from '../records/push-record.ts';
import { markAccepted } from './mark-accepted.ts';
import { scheduledEntry } from './scheduled-entry.ts';

/**
 * A repeated `req_id` is answered with the first push; this makes sure that
 * push is on its way. The node that accepted it may have died after writing
 * its record and before publishing it (or adding its scheduled entry), and a
 * client that got no answer sends the request again: the resend is the only
 * chance left to send it. So a record not yet fanned out is published again,
 * and a scheduled one gets its entry again. Both are harmless when the first
 * request got through: the store refuses a second entry under one id, and a
 * push published twice (an entry moved twice) is fanned out once, since the
 * fan-out leaves a record that has its tasks alone.
 *
 * Nothing is done for a record that is gone (cancelled since), accepted,
 * fanned out, or failed (settled by the sweep, too late for a resend).
 */
export async function resumeFirstPush(deps: Pick<PushDeps, 'store' | 'bus' | 'topics' | 'logger' | 'clock'>, appId: string, objectId: string): Promise<void> {
  const record = await deps.store.pushes.getRecord(appId, objectId);
  if (record === null || record[RecordField.accepted] === true || typeof record[RecordField.expectedTasks] === 'number' || record.status === 'Error') return;
  const scheduledId = record[RecordField.scheduledId];
  if (typeof scheduledId !== 'number') {
    await deps.bus.publish(deps.topics.requests, [{ key: objectId, value: encodeMessage({ appId, pushId: objectId }) }]);
  } else {
    const dueAt = Date.parse(String(record.push_time));
    if (Number.isNaN(dueAt)) return;
    try {
      await deps.store.scheduled.add(scheduledEntry(appId, scheduledId, record, dueAt));
    } catch (error) {
      // The entry is still there: the first request got through.
      if (!(error instanceof DuplicateValueError)) throw error;
    }
  }
  await markAccepted(deps, appId, record);
}
