import { ErrorCode, fail } from '../../core/errors.ts';
import { isJsonObject } from '../../query/json-value.ts';
import { checkAndroidData } from './android-data.ts';
import { checkIosData } from './ios-data.ts';
import type { Platform } from './push-request.ts';

/**
 * Validates `data` for every platform the push can reach and answers it
 * unchanged. When both can be reached it must suit both (so `alert` is a
 * string). A push that can reach no platform only needs an object.
 */
export function readPushData(value: unknown, platforms: ReadonlySet<Platform>): Record<string, unknown> {
  if (value === undefined || value === null) fail(ErrorCode.missingRequiredKey, 'data is required');
  if (!isJsonObject(value)) fail(ErrorCode.invalidType, 'data must be a JSON object');
  if (platforms.has('ios')) checkIosData(value, { iosOnly: !platforms.has('android') });
  if (platforms.has('android')) checkAndroidData(value);
  return value;
}
