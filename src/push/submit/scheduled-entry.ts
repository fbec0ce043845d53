import { randomInt } from 'node:crypto';
import type { ScheduledPush } from '../../core/ports/scheduled-push-store.ts';
import type { PushDoc } from '../../core/ports/push-store.ts';

/**
 * A new numeric id for a scheduled push (SPEC: `id` is a number): the time in
 * ms times 1000 plus a random part, which stays below 2^53 for millennia.
 * The store refuses a duplicate within an app; the caller draws again.
 */
export function newScheduledId(now: number): number {
  return now * 1000 + randomInt(1000);
}

/** The scheduled entry of a record waiting for its push_time, with the `push_msg` SPEC-NOTES lists. */
export function scheduledEntry(appId: string, id: number, record: PushDoc, dueAt: number): ScheduledPush {
  const message: Record<string, unknown> = {
    id: record.objectId,
    notificationId: record.notificationId,
    'app-id': appId,
    'api-version': '1.1',
    prod: record.prod,
    msg: record.data,
    where: record.where,
  };
  if (record.device_type !== undefined) Object.assign(message, { device_type: record.device_type, device_ids: record.device_ids });
  return { id, appId, pushId: record.objectId, dueAt, createdAt: record.createdAt, message };
}
