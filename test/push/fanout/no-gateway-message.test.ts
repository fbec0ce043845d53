import { describe, expect, it } from 'vitest';
import type { AppPushConfig } from '../../../src/config/push-gateways-schema.ts';
import { appGatewaysOf, gatewayList } from '../../../src/push/gateways/app-gateways.ts';
import { noGatewayMessage } from '../../../src/push/fanout/no-gateway-message.ts';
import type { PushSpec } from '../../../src/push/push-spec.ts';

const token = { keyFile: '/k.p8', keyId: 'ABCDEFGHIJ', teamId: 'KLMNOPQRST' };
const certificate = { pfxFile: '/c.p12' };
const hms = { profiles: { _default: { appId: '1', clientSecretFile: '/s' } } } as unknown as NonNullable<AppPushConfig['hms']>;

function spec(target: PushSpec['target'], environment: PushSpec['environment'] = 'prod'): PushSpec {
  return { data: {}, target, expiresAt: null, environment, topic: null, apnsTeamId: null, flowControl: null, androidChannel: null };
}

const everywhere = spec({ kind: 'query', where: null, platforms: ['ios', 'android'] });
const iosOnly = spec({ kind: 'query', where: null, platforms: ['ios'] });
const androidOnly = spec({ kind: 'query', where: null, platforms: ['android'] });
const devices = (deviceType: 'ios' | 'android', vendor: string | null = null, environment: PushSpec['environment'] = 'prod') =>
  spec({ kind: 'devices', deviceType, ids: ['x'], deviceProfile: null, vendor }, environment);

describe('noGatewayMessage', () => {
  it.each<[string, AppPushConfig | undefined, PushSpec, string | undefined]>([
    ['an app with nothing, to every platform', undefined, everywhere, 'no configured gateway for ios: NoApnsCredentials; android: NoFcmCredentials'],
    ['an app with nothing, to iOS', {}, iosOnly, 'no configured gateway for ios: NoApnsCredentials'],
    ['an app with FCM only, to iOS devices', { fcm: { serviceAccountFile: '/f.json' } }, devices('ios'), 'no configured gateway for ios: NoApnsCredentials'],
    ['an app with APNs only, to Android', { apns: { token } }, androidOnly, 'no configured gateway for android: NoFcmCredentials'],
    ['an app with APNs only, to every platform: iOS is reached', { apns: { token } }, everywhere, undefined],
    ['an app with a production certificate, a development push', { apns: { certificates: { production: certificate } } }, devices('ios', null, 'dev'), 'no configured gateway for ios: NoApnsCredentials'],
    ['an app with a development certificate of a profile, a development push', { apns: { certificates: { profiles: { beta: { development: certificate } } } } }, devices('ios', null, 'dev'), undefined],
    ['an app with token auth, a development push', { apns: { token } }, devices('ios', null, 'dev'), undefined],
    ['an app with HMS only, to Android: its Huawei devices are reached', { hms }, androidOnly, undefined],
    ['an app with FCM only, to devices by an HMS vendor', { fcm: { serviceAccountFile: '/f.json' } }, devices('android', 'HMS'), 'no configured gateway for android: NoVendorCredentials'],
    ['an app with HMS, to devices by an HMS vendor', { hms }, devices('android', 'HMS'), undefined],
    ['an app with FCM, to devices by the lc vendor', { fcm: { serviceAccountFile: '/f.json' } }, devices('android', 'lc'), 'no configured gateway for android: NoRegistrationId'],
    ['an app with FCM, to devices by a vendor nobody serves', { fcm: { serviceAccountFile: '/f.json' } }, devices('android', 'nokia'), 'no configured gateway for android: UnsupportedVendor'],
  ])('%s', (_name, push, pushSpec, message) => {
    expect(noGatewayMessage(pushSpec, appGatewaysOf(push))).toBe(message);
  });
});

describe('appGatewaysOf', () => {
  it('lists the gateways an app configures, for the start-up line', () => {
    expect(gatewayList(appGatewaysOf({ apns: { token }, fcm: { serviceAccountFile: '/f.json' }, hms }))).toEqual(['apns', 'fcm', 'hms']);
    expect(gatewayList(appGatewaysOf({}))).toEqual([]);
    expect(gatewayList(appGatewaysOf(undefined))).toEqual([]);
  });
});
