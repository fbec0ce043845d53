import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { RawConfig } from '../../src/config/schema.ts';
import { fcmProjectId, hmsApps, honorApps, startFakeApns, startFakeFcm, startFakeHms, startFakeHonor, startFakeXiaomi, xiaomiApps } from './gateways/gateway-fixtures.ts';
import type { FakeApns, FakeApnsOptions } from './gateways/fake-apns.ts';
import type { FakeFcm, FakeFcmOptions } from './gateways/fake-fcm.ts';
import type { FakeHms, FakeHmsOptions } from './gateways/fake-hms.ts';
import type { FakeOppo, FakeOppoOptions } from './gateways/fake-oppo.ts';
import { oppoApps, startFakeOppo } from './gateways/gateway-fixtures.ts';
import type { FakeVivo, FakeVivoOptions } from './gateways/fake-vivo.ts';
import { startFakeVivo, vivoApps } from './gateways/gateway-fixtures.ts';
import type { FakeHonor, FakeHonorOptions } from './gateways/fake-honor.ts';
import type { FakeMeizu, FakeMeizuOptions } from './gateways/fake-meizu.ts';
import { meizuApps, startFakeMeizu } from './gateways/gateway-fixtures.ts';
import type { FakeXiaomi, FakeXiaomiOptions } from './gateways/fake-xiaomi.ts';
import { testPki, writeServiceAccount, type TestPki } from './gateways/test-pki.ts';

type RawApp = NonNullable<RawConfig['apps']>[number];

/** A fake APNs, a fake FCM and the phone makers' fakes, and the config that points an app at them. */
export interface PushGatewayFakes {
  pki: TestPki;
  apns: FakeApns;
  fcm: FakeFcm;
  /** Huawei Push Kit; the app has its profiles `_default` and `second` (`hmsApps`). */
  hms: FakeHms;
  /** OPPO Push; the app has its profiles `_default` (with a notification channel) and `second` (`oppoApps`). */
  oppo: FakeOppo;
  /** vivo Push; the app has its profiles `_default` and `second` (`vivoApps`). */
  vivo: FakeVivo;
  /** Honor Push; the app has its profiles `_default` and `second` (`honorApps`). */
  honor: FakeHonor;
  /** Meizu Flyme Push; the app has its profiles `_default` and `second` (`meizuApps`). */
  meizu: FakeMeizu;
  /** Xiaomi Mi Push, its China and global services; the app has its profiles `_default` and `second` (`xiaomiApps`). */
  xiaomi: FakeXiaomi;
  /** The app's `push` section: token auth at the fake APNs (both environments), FCM and each maker through its fake. */
  appPush: NonNullable<RawApp['push']>;
  /** The engine's `push` section with the fakes' CA trusted. */
  engine(overrides?: Partial<NonNullable<RawConfig['push']>>): NonNullable<RawConfig['push']>;
  close(): Promise<void>;
}

/**
 * Starts every fake (TLS, certificates from the test PKI, trusted through the
 * CA setting): APNs and FCM over HTTP/2, the phone makers over HTTP/1.1.
 */
export async function startPushGatewayFakes(
  options: { apns?: Partial<FakeApnsOptions>; fcm?: Partial<FakeFcmOptions>; hms?: Partial<FakeHmsOptions>; oppo?: Partial<FakeOppoOptions>; vivo?: Partial<FakeVivoOptions>; honor?: Partial<FakeHonorOptions>; meizu?: Partial<FakeMeizuOptions>; xiaomi?: Partial<FakeXiaomiOptions> } = {},
): Promise<PushGatewayFakes> {
  const pki = await testPki();
  const apns = await startFakeApns(pki, options.apns);
  const fcm = await startFakeFcm(pki, options.fcm);
  const hms = await startFakeHms(pki, options.hms);
  const oppo = await startFakeOppo(pki, options.oppo);
  const vivo = await startFakeVivo(pki, options.vivo);
  const xiaomi = await startFakeXiaomi(pki, options.xiaomi);
  const honor = await startFakeHonor(pki, options.honor);
  const meizu = await startFakeMeizu(pki, options.meizu);
  const serviceAccountFile = writeServiceAccount(pki, { projectId: fcmProjectId, tokenUri: fcm.tokenUri, name: `fcm-${fcm.origin.split(':').at(-1)}` });
  return {
    pki,
    apns,
    fcm,
    hms,
    oppo,
    vivo,
    xiaomi,
    honor,
    meizu,
    appPush: {
      apns: {
        topic: pki.apns.topic,
        token: { keyFile: pki.apns.key.file, keyId: pki.apns.key.keyId, teamId: pki.apns.teamId },
        endpoints: { production: apns.origin, development: apns.origin },
      },
      fcm: { serviceAccountFile, endpoint: fcm.origin },
      hms: {
        endpoints: { auth: hms.authUrl, send: hms.sendUrl },
        profiles: Object.fromEntries(
          Object.entries(hmsApps).map(([name, app]) => [
            name,
            { appId: app.appId, clientId: app.clientId, clientSecretFile: secretFile(pki, `hms-${name}`, app.clientSecret) },
          ]),
        ),
      },
      oppo: {
        endpoints: { auth: oppo.authUrl, send: oppo.sendUrl },
        profiles: {
          _default: { appKey: oppoApps._default.appKey, masterSecretFile: secretFile(pki, 'oppo-_default', oppoApps._default.masterSecret), channelId: 'push' },
          second: { appKey: oppoApps.second.appKey, masterSecretFile: secretFile(pki, 'oppo-second', oppoApps.second.masterSecret) },
        },
      },
      vivo: {
        endpoints: { auth: vivo.authUrl, send: vivo.sendUrl, saveList: vivo.saveListUrl, sendList: vivo.sendListUrl },
        profiles: Object.fromEntries(
          Object.entries(vivoApps).map(([name, app]) => [name, { appId: app.appId, appKey: app.appKey, appSecretFile: secretFile(pki, `vivo-${name}`, app.appSecret) }]),
        ),
      },
      honor: {
        endpoints: { auth: honor.authUrl, send: honor.sendUrl },
        profiles: Object.fromEntries(
          Object.entries(honorApps).map(([name, app]) => [
            name,
            { appId: app.appId, clientId: app.clientId, clientSecretFile: secretFile(pki, `honor-${name}`, app.clientSecret) },
          ]),
        ),
      },
      meizu: {
        endpoints: { send: meizu.sendUrl },
        profiles: Object.fromEntries(
          Object.entries(meizuApps).map(([name, app]) => [name, { appId: app.appId, appSecretFile: secretFile(pki, `meizu-${name}`, app.appSecret) }]),
        ),
      },
      xiaomi: {
        endpoints: { send: xiaomi.sendUrl, sendGlobal: xiaomi.globalSendUrl },
        profiles: Object.fromEntries(
          Object.entries(xiaomiApps).map(([name, app]) => [name, { packageName: app.packageName, appSecretFile: secretFile(pki, `xiaomi-${name}`, app.appSecret) }]),
        ),
      },
    },
    engine: (overrides = {}) => ({ ...overrides, gateways: { caFile: pki.ca.certFile, ...overrides.gateways } }),
    close: async () => {
      await apns.close();
      await fcm.close();
      await hms.close();
      await oppo.close();
      await vivo.close();
      await xiaomi.close();
      await honor.close();
      await meizu.close();
    },
  };
}

/** Writes a maker's secret into a file of the PKI's folder, as an operator would (with a trailing newline), and answers its path. */
export function secretFile(pki: TestPki, name: string, secret: string): string {
  const file = join(pki.dir, `${name}.secret`);
  writeFileSync(file, `${secret}\n`, { mode: 0o600 });
  return file;
}
