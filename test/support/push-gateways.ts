import type { RawConfig } from '../../src/config/schema.ts';
import { fcmProjectId, startFakeApns, startFakeFcm } from './gateways/gateway-fixtures.ts';
import type { FakeApns, FakeApnsOptions } from './gateways/fake-apns.ts';
import type { FakeFcm, FakeFcmOptions } from './gateways/fake-fcm.ts';
import { testPki, writeServiceAccount, type TestPki } from './gateways/test-pki.ts';

type RawApp = NonNullable<RawConfig['apps']>[number];

/** A fake APNs and a fake FCM, and the config that points an app at them. */
export interface PushGatewayFakes {
  pki: TestPki;
  apns: FakeApns;
  fcm: FakeFcm;
  /** The app's `push` section: token auth at the fake APNs (both environments), FCM through the fake. */
  appPush: NonNullable<RawApp['push']>;
  /** The engine's `push` section with the fakes' CA trusted. */
  engine(overrides?: Partial<NonNullable<RawConfig['push']>>): NonNullable<RawConfig['push']>;
  close(): Promise<void>;
}

/** Starts both fakes (TLS HTTP/2, certificates from the test PKI, trusted through the CA setting). */
export async function startPushGatewayFakes(options: { apns?: Partial<FakeApnsOptions>; fcm?: Partial<FakeFcmOptions> } = {}): Promise<PushGatewayFakes> {
  const pki = await testPki();
  const apns = await startFakeApns(pki, options.apns);
  const fcm = await startFakeFcm(pki, options.fcm);
  const serviceAccountFile = writeServiceAccount(pki, { projectId: fcmProjectId, tokenUri: fcm.tokenUri, name: `fcm-${fcm.origin.split(':').at(-1)}` });
  return {
    pki,
    apns,
    fcm,
    appPush: {
      apns: {
        topic: pki.apns.topic,
        token: { keyFile: pki.apns.key.file, keyId: pki.apns.key.keyId, teamId: pki.apns.teamId },
        endpoints: { production: apns.origin, development: apns.origin },
      },
      fcm: { serviceAccountFile, endpoint: fcm.origin },
    },
    engine: (overrides = {}) => ({ ...overrides, gateways: { caFile: pki.ca.certFile, ...overrides.gateways } }),
    close: async () => {
      await apns.close();
      await fcm.close();
    },
  };
}
