import { fork, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { resolve } from 'node:path';
import type { RawConfig } from '../../src/config/schema.ts';
import { hmsApps, honorApps, meizuApps, oppoApps, vivoApps, xiaomiApps } from '../../test/support/gateways/gateway-fixtures.ts';
import type { TestPki } from '../../test/support/gateways/test-pki.ts';
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

type Reply = { id: number; ok: true; value: unknown } | { id: number; ok: false; error: string };

/**
 * The six phone makers' fakes (Huawei, Honor, Xiaomi, OPPO, vivo, Meizu) in
 * one child process, as `FakeFcmProcess` runs FCM's, so that Herald's CPU is
 * measured without theirs. Counts only; each knows the push tests' `_default`
 * app of its maker.
 */
export class FakeMakersProcess {
  readonly #child: ChildProcess;
  readonly #pending = new Map<number, { resolve: (value: unknown) => void; reject: (error: Error) => void }>();
  #nextId = 1;
  #endpoints: Record<MakerName, MakerEndpoints> | undefined;

  static async start(pki: TestPki): Promise<FakeMakersProcess> {
    const child = fork(childScript, [], { execPath: process.execPath, execArgv: [], stdio: ['ignore', 'inherit', 'inherit', 'ipc'], serialization: 'advanced' });
    const killOnExit = (): void => {
      child.kill('SIGKILL');
    };
    process.once('exit', killOnExit);
    child.once('exit', () => process.off('exit', killOnExit));
    const fakes = new FakeMakersProcess(child);
    try {
      fakes.#endpoints = (await fakes.#call({ type: 'start', cert: pki.server.certPem, key: pki.server.keyPem })) as Record<MakerName, MakerEndpoints>;
      return fakes;
    } catch (error) {
      child.kill('SIGKILL');
      throw error;
    }
  }

  private constructor(child: ChildProcess) {
    this.#child = child;
    child.on('message', (reply: Reply) => {
      const waiter = this.#pending.get(reply.id);
      if (waiter === undefined) return;
      this.#pending.delete(reply.id);
      if (reply.ok) waiter.resolve(reply.value);
      else waiter.reject(new Error(`fake makers process: ${reply.error}`));
    });
    child.once('exit', (code, signal) => {
      for (const waiter of this.#pending.values()) waiter.reject(new Error(`fake makers process exited (${signal ?? code})`));
      this.#pending.clear();
    });
  }

  /** The app's `push` blocks of the six makers: each fake's URLs and its `_default` profile, secrets written as files into the PKI's folder. */
  appPush(pki: TestPki): Pick<AppPush, MakerName> {
    const endpoints = this.#endpoints;
    if (endpoints === undefined) throw new Error('the fake makers are not started');
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
    return this.#call({ type: 'counts' }) as Promise<FakeMakersCounts>;
  }

  /** Forgets the counts and recorded requests (connections stay open). */
  async reset(): Promise<void> {
    await this.#call({ type: 'reset' });
  }

  /** Closes the fakes and waits for the child to exit; kills it after 5 s. */
  async close(): Promise<void> {
    if (this.#child.exitCode !== null || this.#child.signalCode !== null) return;
    const exited = once(this.#child, 'exit');
    const guard = setTimeout(() => this.#child.kill('SIGKILL'), 5000);
    try {
      await this.#call({ type: 'close' }).catch(() => undefined);
      await exited;
    } finally {
      clearTimeout(guard);
    }
  }

  #call(command: FakeMakersChildCommand): Promise<unknown> {
    const id = this.#nextId++;
    return new Promise((resolvePromise, reject) => {
      if (!this.#child.connected) {
        reject(new Error('fake makers process is not running'));
        return;
      }
      this.#pending.set(id, { resolve: resolvePromise, reject });
      this.#child.send({ id, command });
    });
  }
}
