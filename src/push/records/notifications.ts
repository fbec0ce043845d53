import type { Caller } from '../../accounts/account-deps.ts';
import { ErrorCode, HeraldError, fail } from '../../core/errors.ts';
import type { PushDoc } from '../../core/ports/push-store.ts';
import type { Query } from '../../query/query.ts';
import { runQuery } from '../../query/run-query.ts';
import type { PushDeps } from '../push-deps.ts';
import { isAccepted, RecordField, viewPushRecord } from './push-record.ts';

/** A push record as callers see it (`viewPushRecord`): untyped JSON, as stored. */
export type PushRecordView = Record<string, unknown>;

/** The answer of `listNotifications`: the page of records, and the total when `count` was asked for. */
export interface NotificationList {
  results: PushRecordView[];
  count?: number;
}

/** Push records are for trusted backends: everything but the lookup by objectId needs the master key. */
function requireMaster(caller: Caller): void {
  if (!caller.master) throw new HeraldError(ErrorCode.forbidden, 'Push records need the master key.', { status: 403 });
}

/**
 * `GET /1.1/notifications`: the app's records, newest first, with the query
 * options of SPEC-NOTES (`where`, `order`, `limit`, `skip`, `keys`, `count`).
 * The records are streamed a page at a time and `runQuery` keeps only
 * `skip + limit` of them.
 */
export async function listNotifications(deps: PushDeps, caller: Caller, query: Query): Promise<NotificationList> {
  requireMaster(caller);
  const order = query.order.length > 0 ? query.order : [{ path: ['createdAt'], descending: true }];
  const found = await runQuery(views(deps.store.pushes.scan(caller.app.config.id)), { ...query, order, readableBy: null });
  return found.count === undefined ? { results: found.results } : { results: found.results, count: found.count };
}

async function* views(records: AsyncIterable<PushDoc>): AsyncGenerator<PushDoc> {
  for await (const record of records) if (isAccepted(record)) yield viewPushRecord(record) as PushDoc;
}

/** The accepted records sharing a notification_id, newest first (`isAccepted`). */
async function recordsOf(deps: PushDeps, appId: string, notificationId: string): Promise<PushDoc[]> {
  return (await deps.store.pushes.findByNotificationId(appId, notificationId)).filter(isAccepted);
}

/**
 * `GET /1.1/notifications/<notification_id>`. Pushes that share a
 * notification_id are counted together (SPEC.md): one record is answered,
 * the newest, with the counters of all of them summed; its status is `done`
 * only when every one is. 404 (101) when there is none.
 */
export async function getNotification(deps: PushDeps, caller: Caller, notificationId: string): Promise<PushRecordView> {
  requireMaster(caller);
  const records = await recordsOf(deps, caller.app.config.id, notificationId);
  const newest = records[0];
  if (newest === undefined) fail(ErrorCode.objectNotFound, 'No push with this notification id.');
  return records.length === 1 ? viewPushRecord(newest) : merged(records);
}

const counters = ['devices', 'successes', 'errors', 'invalidTokens', 'iosSuccesses', 'androidSuccesses'] as const;

function merged(records: PushDoc[]): Record<string, unknown> {
  const view = viewPushRecord(records[0] as PushDoc);
  for (const counter of counters) view[counter] = records.reduce((sum, record) => sum + Number(record[counter] ?? 0), 0);
  const reasons: Record<string, number> = {};
  for (const record of records) {
    for (const [reason, count] of Object.entries((record.errorReasons ?? {}) as Record<string, number>)) reasons[reason] = (reasons[reason] ?? 0) + count;
  }
  view.errorReasons = reasons;
  const statuses = new Set(records.map((record) => record.status));
  view.status = statuses.has('Error') ? 'Error' : statuses.size === 1 ? records[0]?.status : statuses.has('scheduled') ? 'scheduled' : 'in-queue';
  view.pushes = records.map((record) => record.objectId);
  return view;
}

/**
 * `DELETE /1.1/notifications/<notification_id>`: deletes the records sharing
 * the id. A push still queued or scheduled is cancelled with its record:
 * senders check the record before each slice, so nothing more is sent
 * (what was sent already stays sent). 101 when there is none.
 */
export async function deleteNotification(deps: PushDeps, caller: Caller, notificationId: string): Promise<void> {
  requireMaster(caller);
  const appId = caller.app.config.id;
  const records = await recordsOf(deps, appId, notificationId);
  if (records.length === 0) fail(ErrorCode.objectNotFound, 'No push with this notification id.');
  for (const record of records) await cancelRecord(deps, appId, record);
}

/** Deletes a record and, for a scheduled push, its waiting entry. */
export async function cancelRecord(deps: PushDeps, appId: string, record: PushDoc): Promise<void> {
  const scheduledId = record[RecordField.scheduledId];
  if (typeof scheduledId === 'number') await deps.store.scheduled.remove(appId, scheduledId);
  await deps.store.pushes.delete(appId, record.objectId);
}

/** `GET /1.1/tables/Notifications/<objectId>`: the record of a push by the objectId its sending answered; the app key is enough. */
export async function getPushRecord(deps: PushDeps, caller: Caller, objectId: string): Promise<PushRecordView> {
  const record = await deps.store.pushes.get(caller.app.config.id, objectId);
  if (record === null || !isAccepted(record)) fail(ErrorCode.objectNotFound, 'No push record with this objectId.');
  return viewPushRecord(record);
}
