import { isoTime } from '../../core/clock.ts';
import type { PushDoc } from '../../core/ports/push-store.ts';
import type { PushDeps } from '../push-deps.ts';
import { RecordField } from '../records/push-record.ts';

/**
 * Flags a record whose push is now published or scheduled, so the
 * scheduler's sweep leaves it alone (UnacceptedPushes). `updatedAt` is the
 * time of this write, never the record's own: the fan-out may have set a
 * later one already.
 *
 * A failure is logged, not thrown: the push is on its way, and an error
 * answer would make the client send it again. Such a record is settled by
 * the sweep only if the fan-out has not reached it by then (a second fault:
 * a store that failed this write and a fan-out lagging by the sweep's grace).
 */
export async function markAccepted(deps: Pick<PushDeps, 'store' | 'logger' | 'clock'>, appId: string, record: PushDoc): Promise<void> {
  try {
    await deps.store.pushes.setFields(appId, record.objectId, { [RecordField.accepted]: true }, isoTime(deps.clock.now()));
  } catch (error) {
    deps.logger.warn({ err: error, appId, pushId: record.objectId }, 'could not mark a push record accepted; its push is on its way');
  }
}
