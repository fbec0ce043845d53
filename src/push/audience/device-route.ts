import type { StoredObject } from '../../core/ports/object-store.ts';
import type { ApnsEnvironment } from '../gateways/apns-client-options.ts';
import type { DeliveryReason } from '../gateways/delivery-reasons.ts';
import type { GatewayName, MakerName } from '../gateways/delivery.ts';
import type { AndroidRoute } from '../gateways/makers/android-routes.ts';
import type { Maker } from '../gateways/makers/maker.ts';
import type { MakerContent } from '../payload/maker-content.ts';
import type { PushSpec } from '../push-spec.ts';

/**
 * The gateways of an app as routing asks for them: the senders' registry of
 * live clients (`PushGateways`), or, for explain, what the app's config
 * gives it. Null when the app has no such credentials or profile.
 */
export interface GatewayDirectory<A extends { readonly defaultTopic: string | undefined }, F, M> {
  apns(appId: string, environment: ApnsEnvironment, profile?: string): A | null;
  fcm(appId: string): F | null;
  maker(appId: string, maker: MakerName, profile: string): M | null;
}

/** The push being routed: its app, spec, and its content per maker (built once per push). */
export interface RoutedPush {
  readonly appId: string;
  readonly spec: PushSpec;
  readonly prepared: { maker(maker: MakerName, overrideFields: ReadonlySet<string>): MakerContent };
}

/** Where one device's delivery goes, or why it is not sent. */
export type DeviceRoute<A, F, M> =
  | { readonly kind: 'apns'; readonly client: A; readonly token: string; readonly topic: string }
  | { readonly kind: 'fcm'; readonly client: F; readonly token: string }
  | { readonly kind: 'maker'; readonly client: M; readonly maker: Maker; readonly variant: string; readonly token: string; readonly content: MakerContent }
  | { readonly kind: 'not-sent'; readonly gateway: GatewayName; readonly reason: DeliveryReason; readonly token: unknown };

export const apnsEnvironments: Readonly<Record<PushSpec['environment'], ApnsEnvironment>> = { prod: 'production', dev: 'development' };

/** Why a device was not sent to, for the sender's warn line and explain: what is missing and where it is set. */
export const notSentCauses: Partial<Record<DeliveryReason, string>> = {
  NoApnsCredentials: 'the app has no APNs credentials for this environment and device profile (apps[].push.apns)',
  NoFcmCredentials: 'the app has no FCM service account (apps[].push.fcm.serviceAccountFile)',
  NoVendorCredentials: "the app has no profile of this maker named by the device's deviceProfile, _default when empty (apps[].push.<maker>.profiles)",
  MissingTopic: 'no apns-topic: the request, the installation (apnsTopic) and the app (apps[].push.apns.topic) name none',
  NoDeviceToken: 'the iOS installation has no deviceToken',
  NoRegistrationId: "the Android installation has no registrationId for its vendor (or its vendor is lc, or empty)",
  UnsupportedVendor: "the installation's vendor names no push service Herald sends through",
  UnknownInstallation: 'no installation has this installationId',
  SilentNotSupported: 'this maker cannot pass a silent (data-only) push to the app',
  Expired: "the push's expiration_time passed before it was sent",
};

/** The maker profile of an installation without a `deviceProfile` (the hosted service's rule). */
export const defaultMakerProfile = '_default';

/** The token an iOS device is sent to: the one a `/push/devices` request listed, else its installation's. */
export function iosTokenOf(installation: StoredObject | null, listed: string): unknown {
  return installation === null ? listed : installation.deviceToken;
}

/** The registrationId an Android device named by a request alone is sent to; undefined for one of an installation (`androidDeviceRoute` reads it there). */
export function listedAndroidId(installation: StoredObject | null, listed: string): string | undefined {
  return installation === null ? listed : undefined;
}

/**
 * An iOS device: its token (the listed one, or the installation's), APNs
 * credentials for the push's environment and the device's profile (the
 * request's `device_profile` for a device push, else the installation's
 * `deviceProfile`), and a topic: the push's, the installation's `apnsTopic`,
 * else the credentials' default.
 */
export function iosDeviceRoute<A extends { readonly defaultTopic: string | undefined }, F, M>(
  gateways: GatewayDirectory<A, F, M>,
  push: RoutedPush,
  token: unknown,
  installation: StoredObject | null,
): DeviceRoute<A, F, M> {
  if (typeof token !== 'string' || token === '') return { kind: 'not-sent', gateway: 'apns', reason: 'NoDeviceToken', token };
  const { spec } = push;
  const profile = spec.target.kind === 'devices' ? spec.target.deviceProfile : installation?.deviceProfile;
  const client = gateways.apns(push.appId, apnsEnvironments[spec.environment], typeof profile === 'string' ? profile : undefined);
  if (client === null) return { kind: 'not-sent', gateway: 'apns', reason: 'NoApnsCredentials', token };
  const storedTopic = installation?.apnsTopic;
  const topic = spec.topic ?? (typeof storedTopic === 'string' && storedTopic !== '' ? storedTopic : client.defaultTopic);
  if (topic === undefined) return { kind: 'not-sent', gateway: 'apns', reason: 'MissingTopic', token };
  return { kind: 'apns', client, token, topic };
}

/**
 * An Android device through the gateway its vendor routes to. `listed` is
 * the registrationId a `/push/devices` request named the device by;
 * otherwise the installation's is used. FCM needs the app's service account;
 * a phone maker the profile named by the request's `device_profile` (a
 * `/push/devices` by vendor), else the installation's `deviceProfile`,
 * `_default` when empty; and a silent push only goes to a maker that can
 * pass one through (the hosted service's rule).
 */
export function androidDeviceRoute<A extends { readonly defaultTopic: string | undefined }, F, M>(
  gateways: GatewayDirectory<A, F, M>,
  push: RoutedPush,
  route: AndroidRoute,
  installation: StoredObject | null,
  listed?: string,
): DeviceRoute<A, F, M> {
  const token = listed ?? installation?.registrationId;
  switch (route.kind) {
    case 'not-sent':
      return { kind: 'not-sent', gateway: 'fcm', reason: route.reason, token };
    case 'fcm': {
      if (typeof token !== 'string' || token === '') return { kind: 'not-sent', gateway: 'fcm', reason: 'NoRegistrationId', token };
      const client = gateways.fcm(push.appId);
      if (client === null) return { kind: 'not-sent', gateway: 'fcm', reason: 'NoFcmCredentials', token };
      return { kind: 'fcm', client, token };
    }
    case 'maker': {
      const { maker } = route;
      const gateway = maker.gateway;
      if (typeof token !== 'string' || token === '') return { kind: 'not-sent', gateway, reason: 'NoRegistrationId', token };
      const { target } = push.spec;
      const requested = target.kind === 'devices' && typeof target.vendor === 'string' ? target.deviceProfile : null;
      const given = requested ?? installation?.deviceProfile;
      const profile = typeof given === 'string' && given !== '' ? given : defaultMakerProfile;
      const client = gateways.maker(push.appId, gateway, profile);
      if (client === null) return { kind: 'not-sent', gateway, reason: 'NoVendorCredentials', token };
      const content = push.prepared.maker(gateway, maker.overrideFields);
      if (content.silent && !maker.silent) return { kind: 'not-sent', gateway, reason: 'SilentNotSupported', token };
      return { kind: 'maker', client, maker, variant: route.variant, token, content };
    }
  }
}
