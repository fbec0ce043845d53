import { isoTime, type Clock } from '../core/clock.ts';
import { HeraldError } from '../core/errors.ts';
import type { Logger } from '../core/logger.ts';
import { gaveUpField, type PushStore } from '../core/ports/push-store.ts';
import { SliceCounts } from './sender/slice-counts.ts';

/**
 * Whether a failed handler should be tried again: an outage of a backing
 * service (every adapter reports one as a retryable `HeraldError`), or a
 * rebalance taking the partition away. Anything else is a fault that the same
 * message will hit again, forever.
 */
export function worthRetrying(error: unknown, signal: AbortSignal | undefined): boolean {
  if (signal?.aborted === true) return true;
  return error instanceof HeraldError && error.retryable;
}

/**
 * Settles a push whose work can never succeed, so that its message is
 * committed instead of being offered again forever: the record says `Error`
 * with the reason, and the failed slice counts as the end of its task.
 *
 * The record is marked given up (`gaveUpField`), so it reads `Error` even if
 * the fan-out's `in-queue` lands after. The status is written first: should
 * the second write fail, the handler rejects and the slice is offered again,
 * fails again and gives up again. The other order would leave, after the same
 * failure, a final slice and no `Error`: the slice offered again is taken for
 * done, and the record reads `done`.
 */
export async function giveUpPush(
  deps: { pushes: PushStore; clock: Clock; logger: Logger },
  push: { appId: string; pushId: string; sliceKey?: string },
  error: unknown,
): Promise<void> {
  const reason = error instanceof Error ? error.message : String(error);
  deps.logger.error({ err: error, app: push.appId, push: push.pushId }, 'push work that cannot succeed was given up');
  const fields = { status: 'Error', errorMessage: `Sending failed: ${reason}`, [gaveUpField]: true };
  await deps.pushes.setFields(push.appId, push.pushId, fields, isoTime(deps.clock.now()));
  if (push.sliceKey !== undefined) {
    await deps.pushes.recordSlice(push.appId, push.pushId, { sliceKey: push.sliceKey, counts: new SliceCounts().toCounts(), final: true, next: null });
  }
}
