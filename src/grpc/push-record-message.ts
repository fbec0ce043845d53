import type { PushRecordView } from '../push/records/notifications.ts';
import type { ScheduledPushView } from '../push/records/scheduled-messages.ts';

/** The counters of a push record, REST name → proto name. */
const counterFields = {
  devices: 'devices',
  successes: 'successes',
  errors: 'errors',
  invalidTokens: 'invalid_tokens',
  iosSuccesses: 'ios_successes',
  androidSuccesses: 'android_successes',
} as const;

/** herald.v1.PushProgress: a record's status and counters. */
export interface PushProgressMessage {
  object_id: string;
  status: string;
  devices: number;
  successes: number;
  errors: number;
  invalid_tokens: number;
  ios_successes: number;
  android_successes: number;
  error_reasons: Record<string, number>;
  error_message?: string;
}

/** herald.v1.PushRecord from the record REST answers: the same fields, JSON members as JSON text, nulls left unset. */
export function pushRecordMessage(view: PushRecordView): Record<string, unknown> {
  const message: Record<string, unknown> = {
    ...pushProgressMessage(view),
    created_at: view.createdAt,
    updated_at: view.updatedAt,
    notification_id: view.notificationId,
    data: JSON.stringify(view.data ?? {}),
    prod: view.prod,
  };
  if (isObject(view.where)) message.where = JSON.stringify(view.where);
  for (const field of ['push_time', 'expiration_time', 'device_type'] as const) {
    if (typeof view[field] === 'string') message[field] = view[field];
  }
  if (Array.isArray(view.device_ids)) message.device_ids = view.device_ids;
  return message;
}

/** herald.v1.PushProgress: what WatchPush streams. */
export function pushProgressMessage(view: PushRecordView): PushProgressMessage {
  const progress: PushProgressMessage = {
    object_id: String(view.objectId),
    status: String(view.status),
    devices: 0,
    successes: 0,
    errors: 0,
    invalid_tokens: 0,
    ios_successes: 0,
    android_successes: 0,
    error_reasons: {},
  };
  for (const [rest, proto] of Object.entries(counterFields)) progress[proto] = count(view[rest]);
  if (isObject(view.errorReasons)) {
    for (const [reason, value] of Object.entries(view.errorReasons)) progress.error_reasons[reason] = count(value);
  }
  if (typeof view.errorMessage === 'string') progress.error_message = view.errorMessage;
  return progress;
}

/** herald.v1.ScheduledPush from an entry of `GET /1.1/scheduledPushMessages`. */
export function scheduledPushMessage(entry: ScheduledPushView): Record<string, unknown> {
  return {
    id: entry.id,
    expire_time: entry.expire_time,
    created_at: entry.createdAt,
    push_msg: JSON.stringify(entry.push_msg),
    push_id: String(entry.push_msg.id),
  };
}

function count(value: unknown): number {
  return typeof value === 'number' && Number.isFinite(value) ? value : 0;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
