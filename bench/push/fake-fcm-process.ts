import { resolve } from 'node:path';
import { ChildRpc } from '../../test/support/child-rpc.ts';
import type { FcmAnswer } from '../../test/support/gateways/fake-fcm.ts';

const childScript = resolve(import.meta.dirname, 'fake-fcm-child.ts');

/** A service account the fake accepts, its public key as PEM so that it crosses the process boundary. */
export interface FakeFcmChildAccount {
  clientEmail: string;
  projectId: string;
  publicKeyPem: string;
}

export interface FakeFcmChildOptions {
  cert: string;
  key: string;
  accounts: FakeFcmChildAccount[];
}

export interface FakeFcmCounts {
  requests: number;
  deliveries: number;
  distinctTokens: number;
  duplicates: number;
  /** Access tokens the fake's token endpoint issued. */
  tokenRequests: number;
  /** The most streams open at once since the last reset, over all sessions and on one (FCM's limit: 100). */
  peakStreams: number;
  peakStreamsPerSession: number;
  /** The child's CPU time since it started, µs. */
  cpu: { user: number; system: number };
}

export type FakeFcmChildCommand =
  | { type: 'start'; options: FakeFcmChildOptions }
  | { type: 'counts' }
  | { type: 'setDefaultAnswer'; answer: FcmAnswer }
  | { type: 'reset' }
  | { type: 'close' };


/**
 * The fake FCM in a child process, as `FakeApnsProcess` does for APNs, so
 * that Herald's CPU is measured without the fakes'. Counts only.
 */
export class FakeFcmProcess {
  readonly #rpc: ChildRpc<FakeFcmChildCommand>;
  readonly #port: number;

  static async start(options: FakeFcmChildOptions): Promise<FakeFcmProcess> {
    const rpc = new ChildRpc<FakeFcmChildCommand>(childScript, 'fake FCM');
    try {
      return new FakeFcmProcess(rpc, (await rpc.call({ type: 'start', options })) as number);
    } catch (error) {
      rpc.kill();
      throw error;
    }
  }

  private constructor(rpc: ChildRpc<FakeFcmChildCommand>, port: number) {
    this.#rpc = rpc;
    this.#port = port;
  }

  get port(): number {
    return this.#port;
  }

  get origin(): string {
    return `https://127.0.0.1:${this.port}`;
  }

  get tokenUri(): string {
    return `${this.origin}/token`;
  }

  counts(): Promise<FakeFcmCounts> {
    return this.#rpc.call({ type: 'counts' }) as Promise<FakeFcmCounts>;
  }

  /** What every request is answered from now on (e.g. `{ status: 200, delayMs: 60 }`: a gateway 60 ms away). */
  async setDefaultAnswer(answer: FcmAnswer): Promise<void> {
    await this.#rpc.call({ type: 'setDefaultAnswer', answer });
  }

  /** Forgets the counts and stream peaks (connections stay open). */
  async reset(): Promise<void> {
    await this.#rpc.call({ type: 'reset' });
  }

  /** Closes the fake and waits for the child to exit; kills it after 5 s. */
  close(): Promise<void> {
    return this.#rpc.close({ type: 'close' });
  }
}
