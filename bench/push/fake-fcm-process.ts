import { fork, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { resolve } from 'node:path';
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

type Reply = { id: number; ok: true; value: unknown } | { id: number; ok: false; error: string };

/**
 * The fake FCM in a child process, as `FakeApnsProcess` does for APNs, so
 * that Herald's CPU is measured without the fakes'. Counts only.
 */
export class FakeFcmProcess {
  readonly #child: ChildProcess;
  readonly #pending = new Map<number, { resolve: (value: unknown) => void; reject: (error: Error) => void }>();
  #nextId = 1;
  #port = 0;

  static async start(options: FakeFcmChildOptions): Promise<FakeFcmProcess> {
    const child = fork(childScript, [], { execPath: process.execPath, execArgv: [], stdio: ['ignore', 'inherit', 'inherit', 'ipc'], serialization: 'advanced' });
    const killOnExit = (): void => {
      child.kill('SIGKILL');
    };
    process.once('exit', killOnExit);
    child.once('exit', () => process.off('exit', killOnExit));
    const fake = new FakeFcmProcess(child);
    try {
      fake.#port = (await fake.#call({ type: 'start', options })) as number;
      return fake;
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
      else waiter.reject(new Error(`fake FCM process: ${reply.error}`));
    });
    child.once('exit', (code, signal) => {
      for (const waiter of this.#pending.values()) waiter.reject(new Error(`fake FCM process exited (${signal ?? code})`));
      this.#pending.clear();
    });
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
    return this.#call({ type: 'counts' }) as Promise<FakeFcmCounts>;
  }

  /** What every request is answered from now on (e.g. `{ status: 200, delayMs: 60 }`: a gateway 60 ms away). */
  async setDefaultAnswer(answer: FcmAnswer): Promise<void> {
    await this.#call({ type: 'setDefaultAnswer', answer });
  }

  /** Forgets the counts and stream peaks (connections stay open). */
  async reset(): Promise<void> {
    await this.#call({ type: 'reset' });
  }

  /** Closes the fake and waits for the child to exit; kills it after 5 s. */
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

  #call(command: FakeFcmChildCommand): Promise<unknown> {
    const id = this.#nextId++;
    return new Promise((resolvePromise, reject) => {
      if (!this.#child.connected) {
        reject(new Error('fake FCM process is not running'));
        return;
      }
      this.#pending.set(id, { resolve: resolvePromise, reject });
      this.#child.send({ id, command });
    });
  }
}
