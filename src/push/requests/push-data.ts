import { ErrorCode, fail } from '../../core/errors.ts';
import { isJsonObject } from '../../query/json-value.ts';
import { makerNames } from '../gateways/delivery.ts';
import { makerOf } from '../gateways/makers/maker-registry.ts';
import { fcmLayers, iosLayers, makerDataKeys, makerLayers, platformData, platformKeys } from '../payload/platform-data.ts';
import { checkAndroidData } from './android-data.ts';
import { checkIosData } from './ios-data.ts';
import type { Platform } from './push-request.ts';

const noFields: ReadonlySet<string> = new Set();

/**
 * Validates `data` for every platform the push can reach and answers it
 * unchanged. When both can be reached it must suit both (so `alert` is a
 * string). A push that can reach no platform only needs an object.
 *
 * Platform keys (`ios`, `android`, `fcm`, `hms`, `honor`, `mi`, `oppo`,
 * `vivo`, `mz`) must be objects; each platform's view of `data` (the base
 * with its layers laid over, docs/push-requests.md "Content per platform")
 * is checked by that platform's rules: iOS's, FCM's, and for each maker
 * given content of its own the Android rules without FCM's reserved keys.
 */
export function readPushData(value: unknown, platforms: ReadonlySet<Platform>): Record<string, unknown> {
  if (value === undefined || value === null) fail(ErrorCode.missingRequiredKey, 'data is required');
  if (!isJsonObject(value)) fail(ErrorCode.invalidType, 'data must be a JSON object');
  for (const key of platformKeys) {
    if (Object.hasOwn(value, key) && !isJsonObject(value[key])) fail(ErrorCode.invalidType, `data.${key} must be an object`);
  }
  if (platforms.has('ios')) {
    // An alert object of data.ios reaches iOS alone, whatever else the push reaches.
    const iosAlert = isJsonObject(value.ios) && Object.hasOwn(value.ios, 'alert');
    checkIosData(platformData(value, iosLayers).data, { iosOnly: !platforms.has('android') || iosAlert });
  }
  if (platforms.has('android')) {
    checkAndroidData(platformData(value, fcmLayers).data);
    for (const maker of makerNames) {
      if (!Object.hasOwn(value, makerDataKeys[maker])) continue;
      checkAndroidData(platformData(value, makerLayers(maker), makerOf(maker)?.overrideFields ?? noFields).data, { fcm: false });
    }
  }
  return value;
}
