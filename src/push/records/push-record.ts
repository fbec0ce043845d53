import { isoTime } from '../../core/clock.ts';
import type { PushDoc, PushStatus } from '../../core/ports/push-store.ts';
import type { PushRequest } from '../requests/push-request.ts';
import { pushSpecOf, type PushSpec } from '../push-spec.ts';

/** Fields of a push record that only the engine reads. */
export const RecordField = {
  spec: '_spec',
  scheduledId: '_scheduledId',
  expectedTasks: 'expectedTasks',
  status: 'status',
  errorMessage: 'errorMessage',
  /** False from the record's write until its push is published or scheduled (see submitPush); absent on records of older versions. */
  accepted: '_accepted',
  /** The request's `req_id`, when it gave one: explain says a repeat of it was answered with this push. */
  reqId: '_reqId',
} as const;

export interface NewRecord {
  objectId: string;
  notificationId: string;
  now: number;
  /** The scheduled entry's id when the push waits for its push_time. */
  scheduledId: number | null;
}

/**
 * The `_Notification` record written when a push is accepted
 * (SPEC-NOTES.md, push records): `scheduled` while it waits for its
 * `push_time`, otherwise `in-queue`; the counters are added on read. It is
 * not yet accepted: see submitPush.
 */
export function newPushRecord(request: PushRequest, record: NewRecord): PushDoc {
  const now = isoTime(record.now);
  const status: PushStatus = record.scheduledId === null ? 'in-queue' : 'scheduled';
  const doc: PushDoc = {
    objectId: record.objectId,
    createdAt: now,
    updatedAt: now,
    notificationId: record.notificationId,
    status,
    data: request.data,
    where: request.target.kind === 'query' ? request.target.whereJson : null,
    prod: request.environment,
    push_time: request.pushTime === null ? null : isoTime(request.pushTime),
    expiration_time: request.expiresAt === null ? null : isoTime(request.expiresAt),
    [RecordField.spec]: pushSpecOf(request),
    [RecordField.accepted]: false,
  };
  if (request.target.kind === 'devices') Object.assign(doc, { device_type: request.target.deviceType, device_ids: request.target.ids });
  if (record.scheduledId !== null) doc[RecordField.scheduledId] = record.scheduledId;
  if (request.reqId !== null) doc[RecordField.reqId] = request.reqId;
  return doc;
}

export function specOfRecord(record: PushDoc): PushSpec | null {
  const spec = record[RecordField.spec];
  return typeof spec === 'object' && spec !== null ? (spec as PushSpec) : null;
}

/**
 * Whether a client can know of the record's push: flagged accepted, from an
 * older version (no flag), or reached by the engine (fanned out, or failed). A record whose API node
 * stopped between writing it and publishing its push answered no 201; it is
 * not shown, counted, merged into its notification_id or cancelled, until a
 * resend of its `req_id` puts it on its way or the sweep removes it
 * (UnacceptedPushes).
 */
export function isAccepted(record: PushDoc): boolean {
  return record[RecordField.accepted] !== false || typeof record[RecordField.expectedTasks] === 'number' || record.status === 'Error';
}

/** The record as a client sees it: every field but the engine's own. */
export function viewPushRecord(record: PushDoc): Record<string, unknown> {
  const view: Record<string, unknown> = {};
  for (const [field, value] of Object.entries(record)) {
    if (field.startsWith('_') || field === RecordField.expectedTasks) continue;
    view[field] = value;
  }
  return view;
}
