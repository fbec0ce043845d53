import { bodyTooDeep } from '../api/middleware/json-body.ts';
import { ErrorCode, HeraldError } from '../core/errors.ts';
import { nestsTooDeep } from '../query/json-nesting.ts';

/** A decoded SendPushRequest or SendToDevicesRequest: unset fields are absent (proto-files.ts). */
export type PushRequestMessage = Record<string, unknown>;

/** Members both push requests share, with the names of the REST body. */
const sharedFields = ['push_time', 'expiration_time', 'expiration_interval', 'notification_id', 'req_id', 'prod', 'topic', 'apns_team_id', 'flow_control'];

/**
 * The REST body of `POST /1.1/push` that a SendPushRequest stands for, so that
 * both transports go through the same readers (`readQueryPush`) with the
 * same rules and messages. `where` stays JSON text: the REST reader accepts a
 * string holding the query too.
 */
export function queryPushBody(message: PushRequestMessage): Record<string, unknown> {
  const body = common(message);
  copy(message, body, ['where', 'channels']);
  if (given(message.notification_channel)) body._notificationChannel = message.notification_channel;
  return bounded(body);
}

/** The REST body of `POST /1.1/push/devices` that a SendToDevicesRequest stands for (read by `readDevicePush`). */
export function devicePushBody(message: PushRequestMessage): Record<string, unknown> {
  const body = common(message);
  copy(message, body, ['device_type', 'device_ids', 'device_profile', 'channel', 'vendor']);
  return bounded(body);
}

/**
 * The REST body's nesting limit, on the body the message stands for, so
 * that a `data` REST refuses (107) is refused here alike, before anything
 * walks it (its size is measured with JSON.stringify).
 */
function bounded(body: Record<string, unknown>): Record<string, unknown> {
  if (nestsTooDeep(body)) throw bodyTooDeep();
  return body;
}

function common(message: PushRequestMessage): Record<string, unknown> {
  const body: Record<string, unknown> = {};
  if (given(message.data)) body.data = parseJsonField('data', message.data as string);
  copy(message, body, sharedFields);
  return body;
}

/**
 * Proto3 cannot tell an empty string or list from an unset one, and some
 * clients send them anyway: both read as "not given", as a REST member left
 * out.
 */
function given(value: unknown): boolean {
  if (value === undefined || value === null || value === '') return false;
  return !Array.isArray(value) || value.length > 0;
}

function copy(message: PushRequestMessage, body: Record<string, unknown>, fields: readonly string[]): void {
  for (const field of fields) if (given(message[field])) body[field] = message[field];
}

/** JSON text of a free-form member; whatever it holds is then checked by the REST reader (an object, for `data`). */
function parseJsonField(name: string, text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    throw new HeraldError(ErrorCode.invalidJson, `${name} must be JSON text of an object.`);
  }
}
