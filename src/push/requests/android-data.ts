import { ErrorCode, fail } from '../../core/errors.ts';

/** Keys of `data` that shape the Android message; every other key is custom. */
export const androidMessageKeys: ReadonlySet<string> = new Set(['alert', 'title', 'silent', 'action']);

/**
 * Whether FCM refuses a custom key in a message's `data` map: `from`,
 * `message_type`, `notification` and keys under `google.` or `gcm.`.
 */
export function isReservedFcmKey(key: string): boolean {
  return key === 'from' || key === 'message_type' || key === 'notification' || key.startsWith('google.') || key.startsWith('gcm.');
}

/** Validates `data` for Android devices; `fcm: false` for a phone maker's view, where FCM's reserved keys mean nothing. */
export function checkAndroidData(data: Readonly<Record<string, unknown>>, options: { fcm: boolean } = { fcm: true }): void {
  const alert = data.alert;
  if (alert === undefined || alert === null) fail(ErrorCode.missingRequiredKey, 'data.alert is required for Android devices');
  if (typeof alert !== 'string') {
    fail(ErrorCode.invalidType, 'data.alert must be a string when the push can reach Android devices; an alert object needs every target to be iOS');
  }
  if (data.title !== undefined && typeof data.title !== 'string') fail(ErrorCode.invalidType, 'data.title must be a string');
  if (data.silent !== undefined && typeof data.silent !== 'boolean') fail(ErrorCode.invalidType, 'data.silent must be true or false');
  if (data.action !== undefined && typeof data.action !== 'string') fail(ErrorCode.invalidType, 'data.action must be a string');
  if (!options.fcm) return;
  for (const key of Object.keys(data)) {
    if (isReservedFcmKey(key)) fail(ErrorCode.invalidFieldName, `data.${key} is reserved by FCM and cannot be sent to Android devices`);
  }
}
