import { resolve } from 'node:path';
import type { ApnsAnswer } from './fake-apns.ts';
import { ChildRpc } from '../child-rpc.ts';
import type { FakeApnsCommand, FakeApnsCounts, FakeApnsProcessOptions } from './fake-apns-protocol.ts';

export type { FakeApnsCounts, FakeApnsProcessOptions, SerializedApnsKey } from './fake-apns-protocol.ts';

const childScript = resolve(import.meta.dirname, 'fake-apns-child.ts');

/**
 * A fake APNs in a child process (the same Node binary), so that a benchmark
 * measures Herald's CPU without the fake's, and `h2load` can be pointed at the
 * same server for the ceiling. Controlled over IPC; use `record: 'count'` for
 * big runs.
 */
export class FakeApnsProcess {
  readonly port: number;
  readonly #rpc: ChildRpc<FakeApnsCommand>;

  /** Forks the child, starts the fake in it and waits for its port. */
  static async start(options: FakeApnsProcessOptions): Promise<FakeApnsProcess> {
    const rpc = new ChildRpc<FakeApnsCommand>(childScript, 'fake APNs');
    try {
      return new FakeApnsProcess(rpc, (await rpc.call({ type: 'start', options })) as number);
    } catch (error) {
      rpc.kill();
      throw error;
    }
  }

  private constructor(rpc: ChildRpc<FakeApnsCommand>, port: number) {
    this.#rpc = rpc;
    this.port = port;
  }

  get origin(): string {
    return `https://127.0.0.1:${this.port}`;
  }

  get pid(): number | undefined {
    return this.#rpc.pid;
  }

  counts(): Promise<FakeApnsCounts> {
    return this.#rpc.call({ type: 'counts' }) as Promise<FakeApnsCounts>;
  }

  /** Accepted deliveries to one token. */
  countOf(token: string): Promise<number> {
    return this.#rpc.call({ type: 'countOf', token }) as Promise<number>;
  }

  async respondTo(token: string, answers: ApnsAnswer[]): Promise<void> {
    await this.#rpc.call({ type: 'respondTo', token, answers });
  }

  async setDefaultAnswer(answer: ApnsAnswer): Promise<void> {
    await this.#rpc.call({ type: 'setDefaultAnswer', answer });
  }

  /** See `FakeApns.goaway`. */
  async goaway(options: { refuseInFlight?: boolean; keepConnection?: boolean } = {}): Promise<void> {
    await this.#rpc.call({ type: 'goaway', options });
  }

  /** See `FakeApns.goawayEverySession`. */
  async goawayEverySession(on: boolean): Promise<void> {
    await this.#rpc.call({ type: 'goawayEverySession', on });
  }

  async reset(): Promise<void> {
    await this.#rpc.call({ type: 'reset' });
  }

  /** Closes the fake and waits for the child to exit; kills it if it does not within 5 s. */
  close(): Promise<void> {
    return this.#rpc.close({ type: 'close' });
  }
}
