import { describe, expect, it } from 'vitest';
import { androidDeviceRoute, iosDeviceRoute, type GatewayDirectory, type RoutedPush } from '../../../src/push/audience/device-route.ts';
import { chooseApnsCredential } from '../../../src/push/gateways/apns-credential-choice.ts';
import { androidRoute } from '../../../src/push/gateways/makers/android-routes.ts';
import { preparePush } from '../../../src/push/sender/prepared-pushes.ts';
import type { PushSpec } from '../../../src/push/push-spec.ts';

const spec: PushSpec = {
  data: { alert: 'Hi' },
  target: { kind: 'query', where: null, platforms: ['ios', 'android'] },
  expiresAt: null,
  environment: 'prod',
  topic: null,
  apnsTeamId: null,
  flowControl: null,
  androidChannel: null,
};

function pushOf(overrides: Partial<PushSpec> = {}): RoutedPush {
  const full = { ...spec, ...overrides };
  return { appId: 'shop', spec: full, prepared: preparePush(full) };
}

/** An app with token auth (topic com.shop), FCM, and an HMS profile `_default`. */
const gateways: GatewayDirectory<{ defaultTopic: string | undefined }, object, object> = {
  apns: () => ({ defaultTopic: 'com.shop' }),
  fcm: () => ({}),
  maker: (_app, maker, profile) => (maker === 'hms' && profile === '_default' ? {} : null),
};
const bare: typeof gateways = { apns: () => null, fcm: () => null, maker: () => null };
const installation = (fields: Record<string, unknown>) => ({ objectId: 'i1', createdAt: '', updatedAt: '', ...fields });

describe('where a device goes', () => {
  it('sends an iOS device with a token to APNs with the topic of the push, the installation or the app', () => {
    expect(iosDeviceRoute(gateways, pushOf(), 'ab12', installation({ deviceType: 'ios' }))).toMatchObject({ kind: 'apns', token: 'ab12', topic: 'com.shop' });
    expect(iosDeviceRoute(gateways, pushOf(), 'ab12', installation({ apnsTopic: 'com.other' }))).toMatchObject({ topic: 'com.other' });
    expect(iosDeviceRoute(gateways, pushOf({ topic: 'com.push' }), 'ab12', installation({ apnsTopic: 'com.other' }))).toMatchObject({ topic: 'com.push' });
  });

  it('names why an iOS device is not sent to', () => {
    expect(iosDeviceRoute(gateways, pushOf(), undefined, installation({}))).toMatchObject({ kind: 'not-sent', reason: 'NoDeviceToken' });
    expect(iosDeviceRoute(bare, pushOf(), 'ab12', installation({}))).toMatchObject({ kind: 'not-sent', reason: 'NoApnsCredentials' });
    const noTopic = { ...gateways, apns: () => ({ defaultTopic: undefined }) };
    expect(iosDeviceRoute(noTopic, pushOf(), 'ab12', installation({}))).toMatchObject({ kind: 'not-sent', gateway: 'apns', reason: 'MissingTopic' });
  });

  it('routes an Android device by its vendor and names why one is not sent to', () => {
    const route = (fields: Record<string, unknown>, push = pushOf(), directory = gateways) => androidDeviceRoute(directory, push, androidRoute(fields.vendor), installation(fields));
    expect(route({ vendor: 'fcm', registrationId: 'r1' })).toMatchObject({ kind: 'fcm', token: 'r1' });
    expect(route({ vendor: 'HMS', registrationId: 'h1' })).toMatchObject({ kind: 'maker', token: 'h1' });
    expect(route({ vendor: 'fcm' })).toMatchObject({ kind: 'not-sent', gateway: 'fcm', reason: 'NoRegistrationId' });
    expect(route({ vendor: 'lc', registrationId: 'r1' })).toMatchObject({ kind: 'not-sent', reason: 'NoRegistrationId' });
    expect(route({ vendor: 'nokia', registrationId: 'r1' })).toMatchObject({ kind: 'not-sent', reason: 'UnsupportedVendor' });
    expect(route({ vendor: 'fcm', registrationId: 'r1' }, pushOf(), bare)).toMatchObject({ kind: 'not-sent', reason: 'NoFcmCredentials' });
    expect(route({ vendor: 'HMS', registrationId: 'h1', deviceProfile: 'second' })).toMatchObject({ kind: 'not-sent', gateway: 'hms', reason: 'NoVendorCredentials' });
    expect(route({ vendor: 'oppo', registrationId: 'o1' }, pushOf({ data: { alert: 'Hi', silent: true } }), { ...gateways, maker: () => ({}) })).toMatchObject({
      kind: 'not-sent',
      gateway: 'oppo',
      reason: 'SilentNotSupported',
    });
  });
});

describe('which APNs credential serves', () => {
  const certificate = { name: 'prod cert' };
  const profileCertificate = { name: 'kids cert' };
  const set = (token: unknown) => ({ token, certificates: { production: certificate }, profiles: new Map([['kids', { production: profileCertificate }]]) });

  it("takes a profile's certificate, else token auth, else the environment's certificate", () => {
    expect(chooseApnsCredential(set(undefined), 'production', 'kids')).toEqual({ kind: 'profile', profile: 'kids', certificate: profileCertificate });
    expect(chooseApnsCredential(set({}), 'production', 'unknown')).toEqual({ kind: 'token' });
    expect(chooseApnsCredential(set(undefined), 'production')).toEqual({ kind: 'certificate', certificate });
  });

  it('sends with no credential rather than one of another bundle or environment', () => {
    expect(chooseApnsCredential(set(undefined), 'production', 'unknown')).toBeNull();
    expect(chooseApnsCredential(set(undefined), 'development')).toBeNull();
  });
});
