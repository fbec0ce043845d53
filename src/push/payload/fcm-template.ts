import { setOwn } from '../../query/field-path.ts';
import { androidMessageKeys } from '../requests/android-data.ts';
import type { PushRequest } from '../requests/push-request.ts';

/** What an FCM HTTP v1 send carries for one push; only the token and TTL vary per device. */
export interface FcmTemplate {
  /** True for a data-only (pass-through) message, `data.silent: true`. */
  readonly silent: boolean;
  /** The `android.notification` object, null for a silent message. */
  readonly notification: Readonly<Record<string, string>> | null;
  /** The message's `data` map. */
  readonly data: Readonly<Record<string, string>>;
  /**
   * The complete request body `{"message": {"token", "android", "data"}}`
   * for one registration token; `ttlSeconds` (time left before expiry, null
   * when the push does not expire) becomes `android.ttl`.
   */
  bodyFor(registrationToken: string, ttlSeconds: number | null): Buffer;
}

/** Longest TTL FCM keeps a message (4 weeks); longer values are lowered to it. */
export const maxFcmTtlSeconds = 28 * 24 * 3600;

/** The key under which the whole `data` travels as JSON, where the hosted service's Android SDK reads it. */
export const fcmPayloadKey = 'payload';

/**
 * Maps a request's `data` to an FCM message, once per push.
 *
 * - Notification (`silent` absent or false): `android.notification` is
 *   `{title, body: alert, channel_id}`, priority high.
 * - Silent: no notification; `alert` and `title` travel in `data`; priority
 *   normal (FCM deprioritises high-priority messages that show nothing).
 * - `data` holds the custom keys as strings (strings as they are, other
 *   values JSON-encoded), `action`, and `payload`: the whole `data` as JSON.
 */
export function buildFcmTemplate(request: Pick<PushRequest, 'data' | 'androidChannel'>): FcmTemplate {
  const source = request.data;
  const silent = source.silent === true;
  const data: Record<string, string> = {};
  if (silent) {
    if (typeof source.alert === 'string') data.alert = source.alert;
    if (typeof source.title === 'string') data.title = source.title;
  }
  if (typeof source.action === 'string') data.action = source.action;
  for (const [key, value] of Object.entries(source)) {
    if (!androidMessageKeys.has(key)) setOwn(data, key, typeof value === 'string' ? value : JSON.stringify(value));
  }
  setOwn(data, fcmPayloadKey, JSON.stringify(source));
  const notification = silent ? null : androidNotification(source, request.androidChannel);
  const android: Record<string, unknown> = { priority: silent ? 'normal' : 'high' };
  if (notification !== null) android.notification = notification;
  // `"android":{` + ttl + the rest: the ttl, when present, comes first and ends with a comma.
  const head = Buffer.from('{"message":{"token":');
  const androidOpen = Buffer.from(',"android":{');
  const tail = Buffer.from(`${JSON.stringify(android).slice(1)},"data":${JSON.stringify(data)}}}`);
  return {
    silent,
    notification,
    data,
    bodyFor(registrationToken: string, ttlSeconds: number | null): Buffer {
      // Only the token and the ttl are written per device; JSON.stringify escapes the token.
      const token = JSON.stringify(registrationToken);
      const ttl = ttlSeconds === null || !Number.isFinite(ttlSeconds) ? '' : `"ttl":"${fcmTtl(ttlSeconds)}s",`;
      const tokenBytes = Buffer.byteLength(token);
      const buffer = Buffer.allocUnsafe(head.length + tokenBytes + androidOpen.length + ttl.length + tail.length);
      let offset = head.copy(buffer, 0);
      offset += buffer.write(token, offset, 'utf8');
      offset += androidOpen.copy(buffer, offset);
      offset += buffer.write(ttl, offset, 'latin1');
      tail.copy(buffer, offset);
      return buffer;
    },
  };
}

function androidNotification(source: Readonly<Record<string, unknown>>, channel: string | null): Record<string, string> {
  const notification: Record<string, string> = {};
  if (typeof source.title === 'string') notification.title = source.title;
  if (typeof source.alert === 'string') notification.body = source.alert;
  if (channel !== null) notification.channel_id = channel;
  return notification;
}

/** Whole seconds from 0 to four weeks. */
function fcmTtl(seconds: number): number {
  return Math.min(maxFcmTtlSeconds, Math.max(0, Math.floor(seconds)));
}

/**
 * The size FCM counts against its 4096-byte limit: the bytes of the data
 * keys and values and of the notification's strings.
 */
export function fcmPayloadBytes(template: FcmTemplate): number {
  let bytes = 0;
  for (const [key, value] of Object.entries(template.data)) bytes += Buffer.byteLength(key) + Buffer.byteLength(value);
  for (const value of Object.values(template.notification ?? {})) bytes += Buffer.byteLength(value);
  return bytes;
}
