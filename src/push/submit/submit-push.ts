import { randomInt } from 'node:crypto';
import type { Caller } from '../../accounts/account-deps.ts';
import { isoTime } from '../../core/clock.ts';
import { DuplicateValueError, ErrorCode, HeraldError } from '../../core/errors.ts';
import { newObjectId } from '../../core/ids.ts';
import type { PushDoc } from '../../core/ports/push-store.ts';
import type { PushDeps } from '../push-deps.ts';
import { encodeMessage } from '../push-messages.ts';
import { newPushRecord } from '../records/push-record.ts';
import { readDevicePush, readQueryPush, type PushRequest } from '../requests/push-request.ts';
import { claimReqId, type PushAnswer } from './req-id-claim.ts';
import { resumeFirstPush } from './resume-first-push.ts';
import { newScheduledId, scheduledEntry } from './scheduled-entry.ts';

/** SPEC.md, Limits: the body of `POST /1.1/push` is at most 4096 bytes of serialised JSON. */
export const maxPushBodyBytes = 4096;

export interface PushSubmission {
  target: 'query' | 'devices';
  body: unknown;
  /** Size of the body as received. */
  bodyBytes: number;
  /** The `X-SVC-Prod` header (a metadata entry of the same name on gRPC). */
  prodHeader: string | undefined;
}

export interface SubmitResult {
  /** The push's objectId and createdAt: of this push, or of the first one when `repeated`. */
  answer: PushAnswer;
  /** The request repeated a `req_id` within its window: nothing new was accepted, and `answer` is the first push's. */
  repeated: boolean;
}

/**
 * `POST /1.1/push` and `POST /1.1/push/devices`, and their gRPC twins:
 * validates, writes the push record, and either publishes the push on
 * `push.requests` or, when its push_time is a minute away or more, schedules
 * it. The API never sends.
 * Nothing stays behind when a step fails: the record and the `req_id` claim
 * are removed again, and the caller gets the error (503 while the bus or the
 * store is away).
 */
export async function submitPush(deps: PushDeps, caller: Caller, submission: PushSubmission): Promise<SubmitResult> {
  const app = caller.app.config;
  if (!caller.master && !app.settings.clientPushAllowed) {
    throw new HeraldError(ErrorCode.clientOperationForbidden, 'Sending pushes needs the master key in this app.');
  }
  // Only /1.1/push has the limit (SPEC.md, Limits): a device push may list 500 iOS tokens, about 33 KB.
  if (submission.target === 'query' && submission.bodyBytes > maxPushBodyBytes) {
    throw new HeraldError(ErrorCode.bodyTooLarge, `A push body is at most ${maxPushBodyBytes} bytes.`);
  }
  const now = deps.clock.now();
  const context = { now, prodHeader: submission.prodHeader };
  const request = submission.target === 'query' ? readQueryPush(submission.body, context) : readDevicePush(submission.body, context);
  const answer: PushAnswer = { objectId: newObjectId(), createdAt: isoTime(now) };

  const claim = request.reqId === null ? null : await claimReqId(deps.coord, app.id, request.reqId, answer);
  if (claim !== null && !claim.won) {
    await resumeFirstPush(deps, app.id, claim.first.objectId);
    return { answer: claim.first, repeated: true };
  }
  try {
    await accept(deps, app.id, request, answer, now);
  } catch (error) {
    await claim?.release().catch(() => undefined);
    throw error;
  }
  deps.metrics.accepted(app.id, request.pushTime === null ? 'now' : 'scheduled');
  return { answer, repeated: false };
}

async function accept(deps: PushDeps, appId: string, request: PushRequest, answer: PushAnswer, now: number): Promise<void> {
  const notificationId = request.notificationId ?? newNotificationId();
  if (request.pushTime !== null) {
    await schedule(deps, appId, request, { objectId: answer.objectId, notificationId, now, dueAt: request.pushTime });
    return;
  }
  const record = newPushRecord(request, { objectId: answer.objectId, notificationId, now, scheduledId: null });
  await deps.store.pushes.insert(appId, record);
  try {
    await deps.bus.publish(deps.topics.requests, [{ key: record.objectId, value: encodeMessage({ appId, pushId: record.objectId }) }]);
  } catch (error) {
    await deps.store.pushes.delete(appId, record.objectId).catch(() => undefined);
    throw error;
  }
}

async function schedule(deps: PushDeps, appId: string, request: PushRequest, ids: { objectId: string; notificationId: string; now: number; dueAt: number }): Promise<void> {
  for (let attempt = 1; ; attempt += 1) {
    const scheduledId = newScheduledId(ids.now);
    const record: PushDoc = newPushRecord(request, { ...ids, scheduledId });
    if (attempt === 1) await deps.store.pushes.insert(appId, record);
    else await deps.store.pushes.setFields(appId, record.objectId, { _scheduledId: scheduledId }, record.updatedAt);
    try {
      await deps.store.scheduled.add(scheduledEntry(appId, scheduledId, record, ids.dueAt));
      return;
    } catch (error) {
      // Two pushes of one app scheduled in the same millisecond drew the same id: draw again.
      if (error instanceof DuplicateValueError && attempt < 5) continue;
      await deps.store.pushes.delete(appId, record.objectId).catch(() => undefined);
      throw error;
    }
  }
}

/** A notification id for pushes that did not name one: 16 letters and digits, like the caller's. */
function newNotificationId(): string {
  const alphabet = 'abcdefghijklmnopqrstuvwxyz0123456789';
  return Array.from({ length: 16 }, () => alphabet[randomInt(alphabet.length)]).join('');
}
