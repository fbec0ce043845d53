import type { StoredObject } from '../../core/ports/object-store.ts';
import { androidRoute, type AndroidRoute } from '../gateways/makers/android-routes.ts';

/**
 * The installation a registrationId listed by `/push/devices` with a
 * `vendor` names, among those holding it (`findByRegistrationId`): an
 * Android one whose own vendor goes through the same gateway as the
 * request's (a maker's token means nothing to another), the last saved when
 * several do (a reinstall left the older one behind). Null when none does:
 * the id is then sent to as given.
 */
export function registrationDevice(holders: readonly StoredObject[], route: AndroidRoute): StoredObject | null {
  const gateway = gatewayOf(route);
  let device: StoredObject | null = null;
  for (const holder of holders) {
    if (holder.deviceType !== 'android' || gatewayOf(androidRoute(holder.vendor)) !== gateway) continue;
    if (device === null || Date.parse(holder.updatedAt) > Date.parse(device.updatedAt)) device = holder;
  }
  return device;
}

function gatewayOf(route: AndroidRoute): string | null {
  if (route.kind === 'maker') return route.maker.gateway;
  return route.kind === 'fcm' ? 'fcm' : null;
}
