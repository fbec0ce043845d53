import { resolve } from 'node:path';
import type { RawConfig } from '../../src/config/schema.ts';
import { hmsApps, honorApps, meizuApps, oppoApps, vivoApps, xiaomiApps } from '../../test/support/gateways/gateway-fixtures.ts';
import type { TestPki } from '../../test/support/gateways/test-pki.ts';
import { ChildRpc } from '../../test/support/child-rpc.ts';
import { secretFile } from '../../test/support/push-gateways.ts';

const childScript = resolve(import.meta.dirname, 'fake-makers-child.ts');

type AppPush = NonNullable<NonNullable<RawConfig['apps']>[number]['push']>;

export const makerNames = ['hms', 'honor', 'xiaomi', 'oppo', 'vivo', 'meizu'] as const;
export type MakerName = (typeof makerNames)[number];

/** A maker fake's URLs, by the config's endpoint names. */
export type MakerEndpoints = Record<string, string>;

/** What one maker's fake received since the last reset. */
export interface MakerCounts {
  /** Every request to its send endpoints (vivo: saved messages too). */
  requests: number;
  /** Those that named tokens. */
  sends: number;
  /** The most tokens one request named. */
  largestRequest: number;
  deliveries: number;
  distinctTokens: number;
  duplicates: number;
  /** Tokens of requests it did not accept. */
  refused: number;
}

export interface FakeMakersCounts {
  makers: Record<MakerName, MakerCounts>;
  /** The child's CPU time since it started, µs. */
  cpu: { user: number; system: number };
}

export type FakeMakersChildCommand = { type: 'start'; cert: string; key: string } | { type: 'counts' } | { type: 'reset' } | { type: 'close' };


/**
 * The six phone makers' fakes (Huawei, Honor, Xiaomi, OPPO, vivo, Meizu) in
 * one child process, as `FakeFcmProcess` runs FCM's, so that Herald's CPU is
 * measured without theirs. Counts only; each knows the push tests' `_default`
 * app of its maker.
 */
export class FakeMakersProcess {
  readonly #rpc: ChildRpc<FakeMakersChildCommand>;
  readonly #endpoints: Record<MakerName, MakerEndpoints>;

  static async start(pki: TestPki): Promise<FakeMakersProcess> {
    const rpc = new ChildRpc<FakeMakersChildCommand>(childScript, 'fake makers');
    try {
      return new FakeMakersProcess(rpc, (await rpc.call({ type: 'start', cert: pki.server.certPem, key: pki.server.keyPem })) as Record<MakerName, MakerEndpoints>);
    } catch (error) {
      rpc.kill();
      throw error;
    }
  }

  private constructor(rpc: ChildRpc<FakeMakersChildCommand>, endpoints: Record<MakerName, MakerEndpoints>) {
    this.#rpc = rpc;
    this.#endpoints = endpoints;
  }

  /** The app's `push` blocks of the six makers: each fake's URLs and its `_default` profile, secrets written as files into the PKI's folder. */
  appPush(pki: TestPki): Pick<AppPush, MakerName> {
    const endpoints = this.#endpoints;
    const secret = (name: string, value: string) => secretFile(pki, `bench-${name}`, value);
    return {
      hms: { endpoints: endpoints.hms, profiles: { _default: { appId: hmsApps._default.appId, clientId: hmsApps._default.clientId, clientSecretFile: secret('hms', hmsApps._default.clientSecret) } } },
      honor: {
        endpoints: endpoints.honor,
        profiles: { _default: { appId: honorApps._default.appId, clientId: honorApps._default.clientId, clientSecretFile: secret('honor', honorApps._default.clientSecret) } },
      },
      xiaomi: { endpoints: endpoints.xiaomi, profiles: { _default: { packageName: xiaomiApps._default.packageName, appSecretFile: secret('xiaomi', xiaomiApps._default.appSecret) } } },
      oppo: { endpoints: endpoints.oppo, profiles: { _default: { appKey: oppoApps._default.appKey, masterSecretFile: secret('oppo', oppoApps._default.masterSecret), channelId: 'push' } } },
      vivo: {
        endpoints: endpoints.vivo,
        profiles: { _default: { appId: vivoApps._default.appId, appKey: vivoApps._default.appKey, appSecretFile: secret('vivo', vivoApps._default.appSecret) } },
      },
      meizu: { endpoints: endpoints.meizu, profiles: { _default: { appId: meizuApps._default.appId, appSecretFile: secret('meizu', meizuApps._default.appSecret) } } },
    };
  }

  counts(): Promise<FakeMakersCounts> {
    return this.#rpc.call({ type: 'counts' }) as Promise<FakeMakersCounts>;
  }

  /** Forgets the counts and recorded requests (connections stay open). */
  async reset(): Promise<void> {
    await this.#rpc.call({ type: 'reset' });
  }

  /** Closes the fakes and waits for the child to exit; kills it after 5 s. */
  close(): Promise<void> {
    return this.#rpc.close({ type: 'close' });
  }
}
