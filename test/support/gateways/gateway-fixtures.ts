import { createPrivateKey } from 'node:crypto';
import type { ApnsTokenAuth } from '../../../src/push/gateways/apns-client-options.ts';
import type { ApnsDelivery } from '../../../src/push/gateways/delivery.ts';
import type { FcmServiceAccount } from '../../../src/push/gateways/fcm-service-account.ts';
import { FakeApns, type FakeApnsOptions } from './fake-apns.ts';
import { FakeFcm, type FakeFcmOptions } from './fake-fcm.ts';
import { FakeHms, type FakeHmsApp, type FakeHmsOptions } from './fake-hms.ts';
import { FakeOppo, type FakeOppoApp, type FakeOppoOptions } from './fake-oppo.ts';
import { FakeVivo, type FakeVivoApp, type FakeVivoOptions } from './fake-vivo.ts';
import { FakeHonor, type FakeHonorApp, type FakeHonorOptions } from './fake-honor.ts';
import { FakeMeizu, type FakeMeizuApp, type FakeMeizuOptions } from './fake-meizu.ts';
import type { TestPki } from './test-pki.ts';
import { FakeXiaomi, type FakeXiaomiApp, type FakeXiaomiOptions } from './fake-xiaomi.ts';

/** A device token as APNs issues them: 32 bytes, hex; distinct per `n`. */
export function deviceToken(n: number): string {
  return n.toString(16).padStart(64, '0');
}

export const alertPayload = Buffer.from('{"aps":{"alert":{"title":"Hello","body":"A message for you"},"badge":1}}');

/** A plain alert delivery to device `n` of the test PKI's topic. */
export function alertTo(pki: TestPki, n: number, extra: Partial<ApnsDelivery> = {}): ApnsDelivery {
  return { token: deviceToken(n), topic: pki.apns.topic, pushType: 'alert', payload: alertPayload, ...extra };
}

/** Token auth with the test PKI's `.p8` key. */
export function apnsTokenAuth(pki: TestPki): ApnsTokenAuth {
  return { kind: 'token', key: createPrivateKey(pki.apns.key.pem), keyId: pki.apns.key.keyId, teamId: pki.apns.teamId };
}

/** A fake APNs with the test server certificate, the PKI's key registered and its CA trusted for client certificates. */
export function startFakeApns(pki: TestPki, options: Partial<FakeApnsOptions> = {}): Promise<FakeApns> {
  return FakeApns.start({
    cert: pki.server.certPem,
    key: pki.server.keyPem,
    clientCa: [pki.ca.certPem],
    keys: [{ keyId: pki.apns.key.keyId, teamId: pki.apns.teamId, publicKey: pki.apns.key.publicKey }],
    ...options,
  });
}

export const fcmProjectId = 'herald-test';

/** A fake FCM that knows the PKI's service account for `fcmProjectId`. */
export function startFakeFcm(pki: TestPki, options: Partial<FakeFcmOptions> = {}): Promise<FakeFcm> {
  return FakeFcm.start({
    cert: pki.server.certPem,
    key: pki.server.keyPem,
    accounts: [{ clientEmail: pki.serviceAccount.clientEmail, publicKey: pki.serviceAccount.publicKey, projectId: fcmProjectId }],
    ...options,
  });
}

/** The PKI's service account with `fake`'s token endpoint, as the credential loader would make it. */
export function fcmAccount(pki: TestPki, fake: FakeFcm): FcmServiceAccount {
  return {
    projectId: fcmProjectId,
    clientEmail: pki.serviceAccount.clientEmail,
    privateKey: createPrivateKey(pki.serviceAccount.privateKeyPem),
    tokenUri: fake.tokenUri,
  };
}

/** An FCM send body for `token`. */
export function fcmMessage(token: string, message: Record<string, unknown> = {}): Buffer {
  return Buffer.from(JSON.stringify({ message: { token, ...message } }));
}

/**
 * The HMS apps of the push tests: the `_default` profile's and the `second`
 * profile's, each its own App ID and OAuth client.
 */
export const hmsApps = {
  _default: { appId: '101000001', clientId: '101000001', clientSecret: 'hms-secret-default' },
  second: { appId: '101000002', clientId: 'client-of-second', clientSecret: 'hms-secret-second' },
} as const satisfies Record<string, FakeHmsApp>;

/** A fake Huawei Push Kit that knows the `hmsApps`. */
export function startFakeHms(pki: TestPki, options: Partial<FakeHmsOptions> = {}): Promise<FakeHms> {
  return FakeHms.start({ cert: pki.server.certPem, key: pki.server.keyPem, apps: Object.values(hmsApps), ...options });
}

/**
 * The Honor apps of the push tests: the `_default` profile's and the
 * `second` profile's, each its own App ID and OAuth client (Honor's Client ID
 * is not its App ID).
 */
export const honorApps = {
  _default: { appId: '104000001', clientId: 'honor-client-default', clientSecret: 'honor-secret-default' },
  second: { appId: '104000002', clientId: 'honor-client-second', clientSecret: 'honor-secret-second' },
} as const satisfies Record<string, FakeHonorApp>;

/** A fake Honor Push that knows the `honorApps`. */
export function startFakeHonor(pki: TestPki, options: Partial<FakeHonorOptions> = {}): Promise<FakeHonor> {
  return FakeHonor.start({ cert: pki.server.certPem, key: pki.server.keyPem, apps: Object.values(honorApps), ...options });
}

/**
 * The Xiaomi apps of the push tests: the `_default` profile's and the
 * `second` profile's, each its own AppSecret and package.
 */
export const xiaomiApps = {
  _default: { appSecret: 'mi-secret-default', packageName: 'com.example.shop' },
  second: { appSecret: 'mi-secret-second', packageName: 'com.example.shop.lite' },
} as const satisfies Record<string, FakeXiaomiApp>;

/** A fake Xiaomi Mi Push (China and global services) that knows the `xiaomiApps`. */
export function startFakeXiaomi(pki: TestPki, options: Partial<FakeXiaomiOptions> = {}): Promise<FakeXiaomi> {
  return FakeXiaomi.start({ cert: pki.server.certPem, key: pki.server.keyPem, apps: Object.values(xiaomiApps), ...options });
}

/**
 * The OPPO apps of the push tests: the `_default` profile's and the
 * `second` profile's, each its own AppKey and MasterSecret.
 */
export const oppoApps = {
  _default: { appKey: 'oppoKeyDefault', masterSecret: 'oppo-master-default' },
  second: { appKey: 'oppoKeySecond', masterSecret: 'oppo-master-second' },
} as const satisfies Record<string, FakeOppoApp>;

/** A fake OPPO Push that knows the `oppoApps`. */
export function startFakeOppo(pki: TestPki, options: Partial<FakeOppoOptions> = {}): Promise<FakeOppo> {
  return FakeOppo.start({ cert: pki.server.certPem, key: pki.server.keyPem, apps: Object.values(oppoApps), ...options });
}

/**
 * The Meizu apps of the push tests: the `_default` profile's and the
 * `second` profile's, each its own App ID and App Secret.
 */
export const meizuApps = {
  _default: { appId: '3000001', appSecret: 'meizu-secret-default' },
  second: { appId: '3000002', appSecret: 'meizu-secret-second' },
} as const satisfies Record<string, FakeMeizuApp>;

/** A fake Meizu Flyme Push that knows the `meizuApps`. */
export function startFakeMeizu(pki: TestPki, options: Partial<FakeMeizuOptions> = {}): Promise<FakeMeizu> {
  return FakeMeizu.start({ cert: pki.server.certPem, key: pki.server.keyPem, apps: Object.values(meizuApps), ...options });
}

/**
 * The vivo apps of the push tests: the `_default` profile's and the
 * `second` profile's, each its own App ID, AppKey and AppSecret.
 */
export const vivoApps = {
  _default: { appId: '103000001', appKey: 'vivo-key-default', appSecret: 'vivo-secret-default' },
  second: { appId: '103000002', appKey: 'vivo-key-second', appSecret: 'vivo-secret-second' },
} as const satisfies Record<string, FakeVivoApp>;

/** A fake vivo Push that knows the `vivoApps`. */
export function startFakeVivo(pki: TestPki, options: Partial<FakeVivoOptions> = {}): Promise<FakeVivo> {
  return FakeVivo.start({ cert: pki.server.certPem, key: pki.server.keyPem, apps: Object.values(vivoApps), ...options });
}

/** `value`, or a failed test when it is null (a registry answered no client). */
export function present<T>(value: T | null | undefined): T {
  if (value === null || value === undefined) throw new Error('expected a value, got none');
  return value;
}
