import { setOwn } from '../../query/field-path.ts';
import { isJsonObject } from '../../query/json-value.ts';
import type { MakerName } from '../gateways/delivery.ts';

/**
 * Keys of a push's `data` that hold content for one platform instead of
 * being sent (the hosted service's "different content per device type"):
 * `ios`, `android`, and one per Android gateway. docs/push-requests.md,
 * "Content per platform".
 */
export const platformKeys: ReadonlySet<string> = new Set(['ios', 'android', 'fcm', 'hms', 'honor', 'mi', 'oppo', 'vivo', 'mz']);

/** The `data` key of each phone maker's content, as the hosted service named them (`mi` for Xiaomi, `mz` for Meizu). */
export const makerDataKeys: Readonly<Record<MakerName, string>> = { hms: 'hms', honor: 'honor', xiaomi: 'mi', oppo: 'oppo', vivo: 'vivo', meizu: 'mz' };

/** Whether `data` has a platform key, whatever its value. */
export function hasPlatformKeys(data: Readonly<Record<string, unknown>>): boolean {
  for (const key in data) if (platformKeys.has(key) && Object.hasOwn(data, key)) return true;
  return false;
}

/** A platform's view of `data`, and the maker fields its own layer held. */
export interface PlatformData {
  /** What the device's app gets: `data` without the platform keys, each layer's keys laid over it in order. */
  data: Readonly<Record<string, unknown>>;
  /** Keys of the last layer that are `fields` of the gateway: written into its request, not sent as data. */
  fields: Readonly<Record<string, unknown>>;
}

const noFields: Readonly<Record<string, unknown>> = Object.freeze({});

/**
 * `data` as a platform sees it: the keys outside `platformKeys`, then the
 * keys of each of `layers` (`data.android`, `data.hms`, …) laid over them,
 * later layers winning, one level deep (a layer's object value replaces the
 * base's). In the last layer, keys in `fields` are the gateway's own request
 * fields (HMS `target_user_type`, say) and are answered apart. Platform keys
 * inside a layer are ignored. `data` without any platform key is answered as
 * it is, so pushes that use none build exactly what they did before.
 */
export function platformData(data: Readonly<Record<string, unknown>>, layers: readonly string[], fields?: ReadonlySet<string>): PlatformData {
  if (!hasPlatformKeys(data)) return { data, fields: noFields };
  const merged: Record<string, unknown> = {};
  const gatewayFields: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(data)) if (!platformKeys.has(key)) setOwn(merged, key, value);
  layers.forEach((layer, index) => {
    const overlay = Object.hasOwn(data, layer) ? data[layer] : undefined;
    if (!isJsonObject(overlay)) return;
    const last = index === layers.length - 1;
    for (const [key, value] of Object.entries(overlay)) {
      if (platformKeys.has(key)) continue;
      if (last && fields?.has(key) === true) setOwn(gatewayFields, key, value);
      else setOwn(merged, key, value);
    }
  });
  return { data: merged, fields: gatewayFields };
}

/** The layers of an iOS device. */
export const iosLayers: readonly string[] = ['ios'];
/** The layers of an Android device reached through FCM. */
export const fcmLayers: readonly string[] = ['android', 'fcm'];

/** The layers of an Android device reached through `maker`. */
export function makerLayers(maker: MakerName): readonly string[] {
  return ['android', makerDataKeys[maker]];
}
