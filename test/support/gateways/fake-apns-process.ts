import { fork, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { resolve } from 'node:path';
import type { ApnsAnswer } from './fake-apns.ts';
import type { FakeApnsCommand, FakeApnsCounts, FakeApnsProcessOptions, FakeApnsReply } from './fake-apns-protocol.ts';

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
  readonly #child: ChildProcess;
  readonly #channel: Channel;
  #exited = false;

  /** Forks the child, starts the fake in it and waits for its port. */
  static async start(options: FakeApnsProcessOptions): Promise<FakeApnsProcess> {
    const child = fork(childScript, [], {
      execPath: process.execPath,
      // Not the parent's flags: a test runner's loaders have no business in the child.
      execArgv: [],
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
      serialization: 'advanced',
    });
    const killOnExit = (): void => {
      child.kill('SIGKILL');
    };
    process.once('exit', killOnExit);
    child.once('exit', () => process.off('exit', killOnExit));
    const channel = new Channel(child);
    try {
      const port = (await channel.call({ type: 'start', options })) as number;
      return new FakeApnsProcess(child, channel, port);
    } catch (error) {
      child.kill('SIGKILL');
      throw error;
    }
  }

  private constructor(child: ChildProcess, channel: Channel, port: number) {
    this.#child = child;
    this.#channel = channel;
    this.port = port;
  }

  get origin(): string {
    return `https://127.0.0.1:${this.port}`;
  }

  get pid(): number | undefined {
    return this.#child.pid;
  }

  counts(): Promise<FakeApnsCounts> {
    return this.#channel.call({ type: 'counts' }) as Promise<FakeApnsCounts>;
  }

  /** Accepted deliveries to one token. */
  countOf(token: string): Promise<number> {
    return this.#channel.call({ type: 'countOf', token }) as Promise<number>;
  }

  async respondTo(token: string, answers: ApnsAnswer[]): Promise<void> {
    await this.#channel.call({ type: 'respondTo', token, answers });
  }

  async setDefaultAnswer(answer: ApnsAnswer): Promise<void> {
    await this.#channel.call({ type: 'setDefaultAnswer', answer });
  }

  /** See `FakeApns.goaway`. */
  async goaway(options: { refuseInFlight?: boolean; keepConnection?: boolean } = {}): Promise<void> {
    await this.#channel.call({ type: 'goaway', options });
  }

  /** See `FakeApns.goawayEverySession`. */
  async goawayEverySession(on: boolean): Promise<void> {
    await this.#channel.call({ type: 'goawayEverySession', on });
  }

  async reset(): Promise<void> {
    await this.#channel.call({ type: 'reset' });
  }

  /** Closes the fake and waits for the child to exit; kills it if it does not within 5 s. */
  async close(): Promise<void> {
    if (this.#exited || this.#child.exitCode !== null) return;
    const exited = once(this.#child, 'exit');
    const guard = setTimeout(() => this.#child.kill('SIGKILL'), 5000);
    try {
      await this.#channel.call({ type: 'close' }).catch(() => undefined);
      await exited;
    } finally {
      clearTimeout(guard);
      this.#exited = true;
    }
  }
}

/** Request/reply over the IPC channel, matched by id. */
class Channel {
  readonly #child: ChildProcess;
  readonly #pending = new Map<number, { resolve: (value: unknown) => void; reject: (error: Error) => void }>();
  #nextId = 1;

  constructor(child: ChildProcess) {
    this.#child = child;
    child.on('message', (reply: FakeApnsReply) => {
      const waiter = this.#pending.get(reply.id);
      if (waiter === undefined) return;
      this.#pending.delete(reply.id);
      if (reply.ok) waiter.resolve(reply.value);
      else waiter.reject(new Error(`fake APNs process: ${reply.error}`));
    });
    child.once('exit', (code, signal) => {
      const error = new Error(`fake APNs process exited (${signal ?? code})`);
      for (const waiter of this.#pending.values()) waiter.reject(error);
      this.#pending.clear();
    });
  }

  call(command: FakeApnsCommand): Promise<unknown> {
    const id = this.#nextId++;
    return new Promise((resolvePromise, reject) => {
      if (!this.#child.connected) {
        reject(new Error('fake APNs process is not running'));
        return;
      }
      this.#pending.set(id, { resolve: resolvePromise, reject });
      this.#child.send({ id, command });
    });
  }
}
