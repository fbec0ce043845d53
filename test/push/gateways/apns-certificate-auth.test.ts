import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { gatewayTransportKinds, type GatewayTransportKind } from '../../../src/push/gateways/gateway-transport.ts';
import { appPushSchema, pushGatewaysSchema, type AppPushConfig } from '../../../src/config/push-gateways-schema.ts';
import { loadPushCredentials } from '../../../src/push/gateways/load-push-credentials.ts';
import { PushGateways } from '../../../src/push/gateways/push-gateways.ts';
import type { FakeApns } from '../../support/gateways/fake-apns.ts';
import { alertTo, deviceToken, startFakeApns } from '../../support/gateways/gateway-fixtures.ts';
import { testPki, type ApnsClientCertificate, type TestPki } from '../../support/gateways/test-pki.ts';

let pki: TestPki;
let production: FakeApns;
let development: FakeApns;
let gateways: PushGateways | undefined;

beforeAll(async () => {
  pki = await testPki();
});

afterEach(async () => {
  await gateways?.close();
  gateways = undefined;
  await production?.close();
  await development?.close();
});

const pfx = (certificate: ApnsClientCertificate) => ({ pfxFile: certificate.pfxFile, passphraseFile: certificate.passphraseFile });
const pem = (certificate: ApnsClientCertificate) => ({ certFile: certificate.certFile, keyFile: certificate.keyFile });

/** Both fakes, and the registry of one app configured as `apns` says (endpoints filled in). */
async function setUp(apns: (endpoints: { production: string; development: string }) => NonNullable<AppPushConfig['apns']>): Promise<PushGateways> {
  production = await startFakeApns(pki, { environment: 'production' });
  development = await startFakeApns(pki, { environment: 'development' });
  const push = appPushSchema.parse({ apns: apns({ production: production.origin, development: development.origin }) });
  const settings = pushGatewaysSchema.parse({ caFile: pki.ca.certFile, transport });
  const credentials = loadPushCredentials([{ id: 'app-1', push }], settings);
  gateways = new PushGateways({ credentials, settings });
  return gateways;
}

/** The transport of the describe block running now. */
let transport: GatewayTransportKind = 'herald';

describe.each(gatewayTransportKinds)('APNs certificate auth (%s transport)', (kind) => {
  beforeAll(() => {
    transport = kind;
  });

  it('sends with the production certificate (PKCS#12) to production and the development one (PEM) to the sandbox', async () => {
    const registry = await setUp((endpoints) => ({
      certificates: { production: pfx(pki.apns.production), development: pem(pki.apns.development) },
      endpoints,
    }));

    const toProduction = registry.apns('app-1', 'production');
    const toSandbox = registry.apns('app-1', 'development');
    expect(toProduction?.defaultTopic).toBe(pki.apns.topic);
    expect(await toProduction?.send(alertTo(pki, 1))).toEqual({ kind: 'delivered' });
    expect(await toSandbox?.send(alertTo(pki, 2))).toEqual({ kind: 'delivered' });

    expect(production.deliveriesTo(deviceToken(1))).toHaveLength(1);
    expect(production.deliveriesTo(deviceToken(1))[0]?.headers.authorization).toBeUndefined();
    expect(development.deliveriesTo(deviceToken(2))).toHaveLength(1);
  });

  it('sends with a named deviceProfile certificate, whose own bundle is its topic', async () => {
    const registry = await setUp((endpoints) => ({
      topic: pki.apns.topic,
      certificates: { production: pfx(pki.apns.production), profiles: { other: { production: pem(pki.apns.profile) } } },
      endpoints,
    }));
    const profileClient = registry.apns('app-1', 'production', 'other');

    expect(profileClient).not.toBe(registry.apns('app-1', 'production'));
    expect(profileClient?.defaultTopic).toBe(pki.apns.profileTopic);
    expect(await profileClient?.send(alertTo(pki, 3, { topic: pki.apns.profileTopic }))).toEqual({ kind: 'delivered' });
    expect(await profileClient?.send(alertTo(pki, 4, { topic: pki.apns.topic }))).toEqual({ kind: 'failed', reason: 'TopicDisallowed', cause: expect.stringMatching(/^answered 400: .*TopicDisallowed/) });
    expect(registry.apns('app-1', 'production', 'unknown')).toBeNull();
    expect(registry.apns('app-1', 'development', 'other')).toBeNull();
  });

  it('is refused with BadCertificateEnvironment when a development certificate reaches production', async () => {
    const registry = await setUp((endpoints) => ({
      certificates: { development: pem(pki.apns.development) },
      endpoints: { development: endpoints.production },
    }));
    expect(await registry.apns('app-1', 'development')?.send(alertTo(pki, 5))).toEqual({ kind: 'failed', reason: 'BadCertificateEnvironment', cause: expect.stringMatching(/^answered 403: .*BadCertificateEnvironment/) });
    expect(production.log.deliveryCount).toBe(0);
  });

  it('is refused with BadCertificate when the certificate is not from Apple\'s CA', async () => {
    const registry = await setUp((endpoints) => ({ certificates: { production: pfx(pki.apns.untrusted) }, endpoints }));
    expect(await registry.apns('app-1', 'production')?.send(alertTo(pki, 6))).toEqual({ kind: 'failed', reason: 'BadCertificate', cause: expect.stringMatching(/^answered 403: .*BadCertificate/) });
  });

  it('takes the certificate\'s bundle id as the default topic when the config names none', async () => {
    const registry = await setUp((endpoints) => ({ certificates: { production: pem(pki.apns.production) }, endpoints }));
    const client = registry.apns('app-1', 'production');
    expect(client?.defaultTopic).toBe(pki.apns.topic);
    expect(await client?.send(alertTo(pki, 7, { topic: client.defaultTopic ?? '' }))).toEqual({ kind: 'delivered' });
  });
});
