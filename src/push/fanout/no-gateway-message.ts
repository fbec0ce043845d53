import type { AppGateways } from '../gateways/app-gateways.ts';
import type { DeliveryReason } from '../gateways/delivery-reasons.ts';
import { androidRoute } from '../gateways/makers/android-routes.ts';
import type { PushSpec } from '../push-spec.ts';
import type { Platform } from '../requests/push-request.ts';

/**
 * The record's `errorMessage` for a push that can reach no gateway the app
 * configures: for each platform the push may reach, the app has nothing to
 * send through (`no configured gateway for ios: NoApnsCredentials`), so
 * every device it targets is counted an error with that reason. Undefined
 * when some platform of the push has a gateway: then only the devices that
 * meet none count their reason.
 *
 * iOS needs APNs credentials for the push's environment (token auth serves
 * both); Android needs FCM or a phone maker, or, for a `/push/devices`
 * request naming a vendor, that vendor's gateway.
 */
export function noGatewayMessage(spec: PushSpec, gateways: AppGateways): string | undefined {
  const { target } = spec;
  const platforms: readonly Platform[] = target.kind === 'query' ? target.platforms : [target.deviceType];
  const missing: string[] = [];
  for (const platform of platforms) {
    const reason = platform === 'ios' ? iosGap(spec, gateways) : androidGap(spec, gateways);
    if (reason === undefined) return undefined;
    missing.push(`${platform}: ${reason}`);
  }
  return missing.length === 0 ? undefined : `no configured gateway for ${missing.join('; ')}`;
}

function iosGap(spec: PushSpec, gateways: AppGateways): DeliveryReason | undefined {
  return gateways.apns.has(spec.environment === 'prod' ? 'production' : 'development') ? undefined : 'NoApnsCredentials';
}

function androidGap(spec: PushSpec, gateways: AppGateways): DeliveryReason | undefined {
  const { target } = spec;
  const vendor = target.kind === 'devices' ? target.vendor : undefined;
  if (vendor !== undefined && vendor !== null) {
    const route = androidRoute(vendor);
    if (route.kind === 'not-sent') return route.reason;
    if (route.kind === 'maker') return gateways.makers.has(route.maker.gateway) ? undefined : 'NoVendorCredentials';
    return gateways.fcm ? undefined : 'NoFcmCredentials';
  }
  // Each installation's vendor picks FCM or a maker: any of them may reach some.
  return gateways.fcm || gateways.makers.size > 0 ? undefined : 'NoFcmCredentials';
}
