import { randomInt } from 'node:crypto';
import type { Caller } from '../../accounts/account-deps.ts';
import { isoTime } from '../../core/clock.ts';
import { DuplicateValueError, ErrorCode, HeraldError } from '../../core/errors.ts';
import { newObjectId } from '../../core/ids.ts';
import { rejectHiddenFields } from '../../devices/installation-query.ts';
import { protectedInstallationFields } from '../../devices/installation-view.ts';
import type { PushDoc } from '../../core/ports/push-store.ts';
import type { PushDeps } from '../push-deps.ts';
import { encodeMessage } from '../push-messages.ts';
import { newPushRecord, RecordField } from '../records/push-record.ts';
import { readDevicePush, readQueryPush } from '../requests/push-request.ts';
import { markAccepted } from './mark-accepted.ts';
import { claimReqId, type PushAnswer, type ReqIdClaim } from './req-id-claim.ts';
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
 *
 * The record is written before the `req_id` is claimed, so a claim always
 * names a push that exists: a node that dies after claiming leaves a record
 * the resend puts on its way (resumeFirstPush). A request that loses the
 * claim removes its own record and answers the first push.
 *
 * The record carries `_accepted: false` until the push is published or
 * scheduled, and readers do not show it meanwhile (`isAccepted`). One left
 * so by a node that died in between (the client got no 201) is removed by
 * the scheduler's sweep (UnacceptedPushes), not sent: the client may well
 * have sent it again without a `req_id`.
 *
 * A push sent with an ordinary key (`clientPushAllowed`) has its `where`
 * held to the rules of an ordinary-key installation query: no `_` field
 * (105), no protected field (403).
 *
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
  // The record's device count would tell an ordinary key what a query on a closed field matched.
  if (!caller.master && request.target.kind === 'query') rejectHiddenFields({ where: request.target.where, order: [] }, false, protectedInstallationFields(app));
  const answer: PushAnswer = { objectId: newObjectId(), createdAt: isoTime(now) };
  const record = newPushRecord(request, {
    objectId: answer.objectId,
    notificationId: request.notificationId ?? newNotificationId(),
    now,
    scheduledId: request.pushTime === null ? null : newScheduledId(now),
  });
  await deps.store.pushes.insert(app.id, record);
  const removeRecord = () => deps.store.pushes.delete(app.id, record.objectId).catch(() => false);

  let claim: ReqIdClaim | null;
  try {
    claim = request.reqId === null ? null : await claimReqId(deps.coord, app.id, request.reqId, answer);
  } catch (error) {
    await removeRecord();
    throw error;
  }
  if (claim !== null && !claim.won) {
    await removeRecord();
    await resumeFirstPush(deps, app.id, claim.first.objectId);
    return { answer: claim.first, repeated: true };
  }
  try {
    await putOnItsWay(deps, app.id, record, request.pushTime);
  } catch (error) {
    await removeRecord();
    await claim?.release().catch(() => undefined);
    throw error;
  }
  await markAccepted(deps, app.id, record);
  deps.metrics.accepted(app.id, request.pushTime === null ? 'now' : 'scheduled');
  return { answer, repeated: false };
}

/** Publishes the push for the fan-out, or adds its scheduled entry (drawing a new id when another push of the app drew the same). */
async function putOnItsWay(deps: PushDeps, appId: string, record: PushDoc, pushTime: number | null): Promise<void> {
  if (pushTime === null) {
    await deps.bus.publish(deps.topics.requests, [{ key: record.objectId, value: encodeMessage({ appId, pushId: record.objectId }) }]);
    return;
  }
  for (let attempt = 1; ; attempt += 1) {
    try {
      await deps.store.scheduled.add(scheduledEntry(appId, Number(record[RecordField.scheduledId]), record, pushTime));
      return;
    } catch (error) {
      // Two pushes of one app scheduled in the same millisecond drew the same id: draw again.
      if (!(error instanceof DuplicateValueError) || attempt >= 5) throw error;
      const scheduledId = newScheduledId(deps.clock.now());
      await deps.store.pushes.setFields(appId, record.objectId, { [RecordField.scheduledId]: scheduledId }, String(record.updatedAt));
      record[RecordField.scheduledId] = scheduledId;
    }
  }
}

/** A notification id for pushes that did not name one: 16 letters and digits, like the caller's. */
function newNotificationId(): string {
  const alphabet = 'abcdefghijklmnopqrstuvwxyz0123456789';
  return Array.from({ length: 16 }, () => alphabet[randomInt(alphabet.length)]).join('');
}
