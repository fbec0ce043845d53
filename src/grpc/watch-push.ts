import type { ServerWritableStream } from '@grpc/grpc-js';
import type { Caller } from '../accounts/account-deps.ts';
import { ErrorCode, HeraldError } from '../core/errors.ts';
import { getPushRecord } from '../push/records/notifications.ts';
import { failure, type GrpcCallDeps } from './call-context.ts';
import { masterCaller } from './metadata-auth.ts';
import { pushProgressMessage, type PushProgressMessage } from './push-record-message.ts';
import { requireObjectId } from '../push/records/record-ids.ts';

export interface WatchPushOptions {
  /** How often a watched record is read from the store. */
  intervalMs: number;
  /** Aborted when the server closes: open watches end with UNAVAILABLE, so clients watch again on another node. */
  closing: AbortSignal;
}

/** The statuses after which a push changes no more. */
const finalStatuses = new Set(['done', 'Error']);

/**
 * herald.v1.PushService.WatchPush: reads the push record every `intervalMs`
 * (the same `getPushRecord` as REST) and writes its status and counters
 * when they differ from the last message: one at once, then on each change.
 * Ends OK after the message with a final status; with NOT_FOUND (101) for an
 * unknown push, or one cancelled or deleted while watched; with the mapped
 * error when a read fails. Stops reading when the client cancels.
 */
export function watchPush(deps: GrpcCallDeps, options: WatchPushOptions) {
  return (call: ServerWritableStream<Record<string, unknown>, PushProgressMessage>): void => {
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
    const read = async () => {
      try {
        // Authenticated once; a failure ends the watch at its first read.
        caller ??= masterCaller(deps.apps, call.metadata);
        const progress = pushProgressMessage(await getPushRecord(deps.push, caller, requireObjectId(call.request.object_id, 'push record')));
        if (over) return;
        const seen = JSON.stringify(progress);
        if (seen !== last) {
          last = seen;
          call.write(progress);
        }
        if (finalStatuses.has(progress.status)) finish();
        else timer = setTimeout(() => void read(), options.intervalMs);
      } catch (error) {
        finish(error);
      }
    };
    void read();
  };
}
