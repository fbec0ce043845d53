import { ErrorCode, fail } from '../../core/errors.ts';
import { knownVendors } from '../gateways/makers/android-routes.ts';
import { optionalString, param, type Params } from './param-rules.ts';
import type { DeviceTarget, Platform } from './push-request.ts';

/** Most ids one `POST /1.1/push/devices` may list (SPEC limits). */
export const maxDeviceIds = 500;

/** APNs device tokens: 32 bytes today, up to 100 bytes allowed for, as hex. */
const deviceTokenPattern = /^(?:[0-9A-Fa-f]{2}){32,100}$/;

/** Longest Android installationId accepted (the SDKs generate 36-character UUIDs). */
export const maxInstallationIdLength = 128;

/** Longest registrationId accepted, as installations keep them. */
export const maxRegistrationIdLength = 4096;

/**
 * The target of `POST /1.1/push/devices`: `device_type` and `device_ids`,
 * plus `device_profile` (iOS, and Android with `vendor`), `vendor` and
 * `channel` (Android). With `vendor` the Android ids are registrationIds of
 * that vendor's devices (one vendor per request, as the hosted service
 * had it); without, installationIds. A platform-specific parameter given for
 * the other platform is type-checked and then ignored.
 */
export function readDeviceTarget(params: Params): DeviceTarget {
  const deviceType = readDeviceType(param(params, 'device_type'));
  const vendor = readVendor(params);
  const ids = readDeviceIds(param(params, 'device_ids'), deviceType === 'android' && vendor !== null ? 'registrationId' : deviceType);
  const deviceProfile = optionalString(params, 'device_profile');
  const channel = optionalString(params, 'channel');
  const target: DeviceTarget = { kind: 'devices', deviceType, ids };
  if (deviceType === 'ios' && deviceProfile !== null) target.deviceProfile = deviceProfile;
  if (deviceType === 'android' && vendor !== null) {
    target.vendor = vendor;
    if (deviceProfile !== null) target.deviceProfile = deviceProfile;
  }
  if (deviceType === 'android' && channel !== null) target.channel = channel;
  return target;
}

/** `vendor`: a vendor some gateway of Herald serves (`fcm`, `HMS`, …), matched exactly as installations store it. */
function readVendor(params: Params): string | null {
  const vendor = optionalString(params, 'vendor');
  if (vendor === null) return null;
  const known = knownVendors();
  if (!known.includes(vendor)) fail(ErrorCode.internal, `vendor must be one of ${known.join(', ')}`);
  return vendor;
}

function readDeviceType(value: unknown): Platform {
  if (value === undefined) fail(ErrorCode.missingRequiredKey, 'device_type is required: "ios" or "android"');
  if (typeof value !== 'string') fail(ErrorCode.invalidType, 'device_type must be a string, "ios" or "android"');
  if (value !== 'ios' && value !== 'android') fail(ErrorCode.internal, 'device_type must be "ios" or "android"');
  return value;
}

/** What the ids of a request are: iOS device tokens, Android installationIds, or registrationIds of a vendor. */
type IdKind = Platform | 'registrationId';

function readDeviceIds(value: unknown, kind: IdKind): string[] {
  if (value === undefined) fail(ErrorCode.missingRequiredKey, 'device_ids is required');
  if (!Array.isArray(value)) fail(ErrorCode.invalidType, 'device_ids must be an array of strings');
  if (value.length === 0) fail(ErrorCode.missingRequiredKey, 'device_ids must list at least one device');
  if (value.length > maxDeviceIds) fail(ErrorCode.internal, `device_ids lists more than ${maxDeviceIds} devices`);
  // A hex token names one device whatever its case: iOS ids are read in lower case, as installations keep them.
  const ids = new Set<string>();
  for (const item of value) {
    if (typeof item !== 'string') fail(ErrorCode.invalidType, 'device_ids must be an array of strings');
    checkDeviceId(item, kind);
    ids.add(kind === 'ios' ? normalIosToken(item) : item);
  }
  return [...ids];
}

/** Whether a value is an APNs device token as pushes accept it: 64 to 200 hex digits, either case. */
export function isIosDeviceToken(value: unknown): value is string {
  return typeof value === 'string' && deviceTokenPattern.test(value);
}

/**
 * An APNs device token as Herald keeps and looks it up: in lower case.
 * Tokens are hex, so their case means nothing, and a device whose SDK sends
 * its token in upper case one day and lower case the next stays one device.
 * Anything that is not an iOS token is answered as it is.
 */
export function normalIosToken(token: string): string {
  return isIosDeviceToken(token) ? token.toLowerCase() : token;
}

/** Whether a value is an Android installationId as pushes accept it: 1 to 128 characters, no spaces or control characters. */
export function isAndroidInstallationId(value: unknown): value is string {
  return typeof value === 'string' && value.length > 0 && value.length <= maxInstallationIdLength && !/[\p{Cc}\s]/u.test(value);
}

function checkDeviceId(id: string, kind: IdKind): void {
  const shown = JSON.stringify(id.slice(0, 40));
  if (kind === 'ios') {
    if (!isIosDeviceToken(id)) fail(ErrorCode.invalidDeviceToken, `invalid device token ${shown} in device_ids: iOS device tokens are 64 to 200 hex digits`);
  } else if (kind === 'registrationId') {
    if (id.length === 0 || id.length > maxRegistrationIdLength || /[\p{Cc}\s]/u.test(id)) fail(ErrorCode.invalidDeviceToken, `invalid registrationId ${shown} in device_ids`);
  } else if (!isAndroidInstallationId(id)) {
    fail(ErrorCode.invalidDeviceToken, `invalid installationId ${shown} in device_ids`);
  }
}
