import type { ServerWritableStream } from '@grpc/grpc-js';
import type { Caller } from '../accounts/account-deps.ts';
import { chunks } from '../core/chunks.ts';
import { ErrorCode, HeraldError } from '../core/errors.ts';
import { getPushRecord } from '../push/records/notifications.ts';
import { failure, type GrpcCallDeps } from './call-context.ts';
import { masterCaller } from './metadata-auth.ts';
import { pushProgressMessage, type PushProgressMessage } from './push-record-message.ts';
import { requireObjectId } from '../push/records/record-ids.ts';
import { deliveryMessage, type DeliveryMessage } from './delivery-message.ts';
import { PushFailureFeed } from './push-failure-feed.ts';

export interface WatchPushOptions {
  /** How often a watched record is read from the store. */
  intervalMs: number;
  /** Aborted when the server closes: open watches end with UNAVAILABLE, so clients watch again on another node. */
  closing: AbortSignal;
}

/** The statuses after which a push changes no more. */
const finalStatuses = new Set(['done', 'Error']);
/** Failures a message carries at most (about 150 KB): more go in further messages. */
export const maxFailuresPerMessage = 500;

/** What WatchPush writes: the progress, and with `failures` asked for, the failures newly recorded. */
type WatchMessage = PushProgressMessage & { failures?: DeliveryMessage[] };

/**
 * herald.v1.PushService.WatchPush: reads the push record every `intervalMs`
 * (the same `getPushRecord` as REST) and writes its status and counters
 * when they differ from the last message: one at once, then on each change.
 * Ends OK after the message with a final status; with NOT_FOUND (101) for an
 * unknown push, or one cancelled or deleted while watched; with the mapped
 * error when a read fails. Stops reading when the client cancels.
 *
 * With `failures: true`, each read whose counters hold more failed and
 * invalid-token devices than the last looked at, and the read that sees
 * the final status, also reads the delivery log's slices recorded since
 * (`PushFailureFeed`), and their failures go out in the next messages, up
 * to `maxFailuresPerMessage` each. The log records a slice before its
 * counters are added, so every failure the final counters hold is sent
 * before the stream ends (unless the delivery log is turned off).
 */
export function watchPush(deps: GrpcCallDeps, options: WatchPushOptions) {
  return (call: ServerWritableStream<Record<string, unknown>, WatchMessage>): void => {
    let timer: NodeJS.Timeout | undefined;
    let over = false;
    /** Stops reading; answers false when the watch was already over. */
    const stop = (): boolean => {
      if (over) return false;
      over = true;
      clearTimeout(timer);
      options.closing.removeEventListener('abort', onClosing);
      return true;
    };
    const finish = (error?: unknown) => {
      if (!stop()) return;
      if (error === undefined) call.end();
      else call.emit('error', failure(deps, 'WatchPush', error));
    };
    const onClosing = () => finish(new HeraldError(ErrorCode.unavailable, 'Herald is shutting down; watch the push again.'));
    call.on('cancelled', stop);
    if (options.closing.aborted) return onClosing();
    options.closing.addEventListener('abort', onClosing);

    let last = '';
    let caller: Caller | undefined;
    let feed: PushFailureFeed | undefined;
    let failuresLookedAt = 0;
    const read = async () => {
      try {
        // Authenticated once; a failure ends the watch at its first read.
        caller ??= masterCaller(deps.apps, call.metadata);
        const progress = pushProgressMessage(await getPushRecord(deps.push, caller, requireObjectId(call.request.object_id, 'push record')));
        if (over) return;
        const final = finalStatuses.has(progress.status);
        let failures: DeliveryMessage[] = [];
        if (call.request.failures === true) {
          feed ??= new PushFailureFeed(deps.push, caller.app.config.id, progress.object_id);
          const counted = progress.errors + progress.invalid_tokens;
          if (final || counted > failuresLookedAt) {
            failuresLookedAt = counted;
            failures = (await feed.next()).map(deliveryMessage);
            if (over) return;
          }
        }
        const seen = JSON.stringify(progress);
        if (seen !== last || failures.length > 0) {
          last = seen;
          for (const message of withFailures(progress, failures)) call.write(message);
        }
        if (final) finish();
        else timer = setTimeout(() => void read(), options.intervalMs);
      } catch (error) {
        finish(error);
      }
    };
    void read();
  };
}

/** The progress alone, or once per `maxFailuresPerMessage` failures with them. */
function withFailures(progress: PushProgressMessage, failures: readonly DeliveryMessage[]): WatchMessage[] {
  if (failures.length === 0) return [progress];
  return chunks(failures, maxFailuresPerMessage).map((some) => ({ ...progress, failures: some }));
}
