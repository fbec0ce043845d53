import { createPrivateKey } from 'node:crypto';
import { SignJWT } from 'jose';
import type { RawConfig } from '../../src/config/schema.ts';
import { FakeApnsProcess, type FakeApnsCounts } from '../../test/support/gateways/fake-apns-process.ts';
import { fcmProjectId } from '../../test/support/gateways/gateway-fixtures.ts';
import { testPki, writeServiceAccount, type TestPki } from '../../test/support/gateways/test-pki.ts';
import { FakeFcmProcess, type FakeFcmCounts } from './fake-fcm-process.ts';

type AppPush = NonNullable<NonNullable<RawConfig['apps']>[number]['push']>;

/** Deliveries both fakes accepted, for progress and the exactly-once check. */
export interface GatewayCounts {
  apns: FakeApnsCounts;
  fcm: FakeFcmCounts | undefined;
  deliveries: number;
  distinctTokens: number;
  duplicates: number;
  /** Requests answered with anything but 200. */
  refused: number;
}

/**
 * The local gateways of a benchmark: the fake APNs in its own process in
 * count mode (the `h2load` ceiling is measured against it too), and with
 * Android devices the fake FCM in another. Both speak TLS with the test
 * PKI's server certificate; Herald is told to trust its CA.
 */
export class BenchGateways {
  readonly pki: TestPki;
  readonly apns: FakeApnsProcess;
  readonly fcm: FakeFcmProcess | undefined;
  readonly #serviceAccountFile: string | undefined;

  static async start(options: { fcm: boolean }): Promise<BenchGateways> {
    const pki = await testPki();
    const apns = await FakeApnsProcess.start({
      cert: pki.server.certPem,
      key: pki.server.keyPem,
      record: 'count',
      keys: [{ keyId: pki.apns.key.keyId, teamId: pki.apns.teamId, publicKeyPem: pki.apns.key.publicKey.export({ type: 'spki', format: 'pem' }).toString() }],
    });
    if (!options.fcm) return new BenchGateways(pki, apns, undefined, undefined);
    try {
      const fcm = await FakeFcmProcess.start({
        cert: pki.server.certPem,
        key: pki.server.keyPem,
        accounts: [
          {
            clientEmail: pki.serviceAccount.clientEmail,
            projectId: fcmProjectId,
            publicKeyPem: pki.serviceAccount.publicKey.export({ type: 'spki', format: 'pem' }).toString(),
          },
        ],
      });
      const serviceAccountFile = writeServiceAccount(pki, { projectId: fcmProjectId, tokenUri: fcm.tokenUri, name: `bench-fcm-${fcm.port}` });
      return new BenchGateways(pki, apns, fcm, serviceAccountFile);
    } catch (error) {
      await apns.close();
      throw error;
    }
  }

  private constructor(pki: TestPki, apns: FakeApnsProcess, fcm: FakeFcmProcess | undefined, serviceAccountFile: string | undefined) {
    this.pki = pki;
    this.apns = apns;
    this.fcm = fcm;
    this.#serviceAccountFile = serviceAccountFile;
  }

  /** The app's `push` section: token auth at the fake APNs for both environments, FCM through its fake. */
  get appPush(): AppPush {
    const { pki } = this;
    const push: AppPush = {
      apns: {
        topic: pki.apns.topic,
        token: { keyFile: pki.apns.key.file, keyId: pki.apns.key.keyId, teamId: pki.apns.teamId },
        endpoints: { production: this.apns.origin, development: this.apns.origin },
      },
    };
    if (this.fcm !== undefined && this.#serviceAccountFile !== undefined) push.fcm = { serviceAccountFile: this.#serviceAccountFile, endpoint: this.fcm.origin };
    return push;
  }

  /** A provider token the fake APNs accepts, as Herald signs them (ES256, the team as issuer). */
  providerToken(): Promise<string> {
    const { pki } = this;
    return new SignJWT({}).setProtectedHeader({ alg: 'ES256', kid: pki.apns.key.keyId }).setIssuer(pki.apns.teamId).setIssuedAt().sign(createPrivateKey(pki.apns.key.pem));
  }

  async counts(): Promise<GatewayCounts> {
    const [apns, fcm] = await Promise.all([this.apns.counts(), this.fcm?.counts()]);
    return {
      apns,
      fcm,
      deliveries: apns.deliveries + (fcm?.deliveries ?? 0),
      distinctTokens: apns.distinctTokens + (fcm?.distinctTokens ?? 0),
      duplicates: apns.duplicates + (fcm?.duplicates ?? 0),
      refused: apns.requests - apns.deliveries + (fcm === undefined ? 0 : fcm.requests - fcm.deliveries),
    };
  }

  /** Forgets what both fakes counted, between runs. */
  async reset(): Promise<void> {
    await Promise.all([this.apns.reset(), this.fcm?.reset()]);
  }

  async close(): Promise<void> {
    await Promise.allSettled([this.apns.close(), this.fcm?.close()]);
  }
}
