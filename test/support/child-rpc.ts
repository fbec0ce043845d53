import { fork, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';

/** What a child answers to a command: its value, or the message of what it threw. */
type Reply = { id: number; ok: true; value: unknown } | { id: number; ok: false; error: string };

/**
 * A fake gateway run in a child process, driven by commands over the IPC
 * channel and answered by id (the child serves them with `serveChildRpc`).
 * The benchmarks use it so that Herald's CPU is measured without the
 * fakes'. The child is killed when this process exits, and exits when this
 * process goes away.
 */
export class ChildRpc<Command extends { type: string }> {
  readonly #child: ChildProcess;
  readonly #name: string;
  readonly #pending = new Map<number, { resolve: (value: unknown) => void; reject: (error: Error) => void }>();
  #nextId = 1;

  /** Forks `script` (without the parent's flags: a test runner's loaders have no business in the child). */
  constructor(script: string, name: string) {
    this.#name = name;
    const child = fork(script, [], { execPath: process.execPath, execArgv: [], stdio: ['ignore', 'inherit', 'inherit', 'ipc'], serialization: 'advanced' });
    this.#child = child;
    const killOnExit = (): void => {
      child.kill('SIGKILL');
    };
    process.once('exit', killOnExit);
    child.on('message', (reply: Reply) => {
      const waiter = this.#pending.get(reply.id);
      if (waiter === undefined) return;
      this.#pending.delete(reply.id);
      if (reply.ok) waiter.resolve(reply.value);
      else waiter.reject(new Error(`${name} process: ${reply.error}`));
    });
    child.once('exit', (code, signal) => {
      process.off('exit', killOnExit);
      const error = new Error(`${name} process exited (${signal ?? code})`);
      for (const waiter of this.#pending.values()) waiter.reject(error);
      this.#pending.clear();
    });
  }

  get pid(): number | undefined {
    return this.#child.pid;
  }

  /** Sends `command` and resolves with the child's answer. */
  call(command: Command): Promise<unknown> {
    const id = this.#nextId++;
    return new Promise((resolve, reject) => {
      if (!this.#child.connected) {
        reject(new Error(`${this.#name} process is not running`));
        return;
      }
      this.#pending.set(id, { resolve, reject });
      this.#child.send({ id, command });
    });
  }

  /** Sends `command` (the child's close) and waits for the child to exit; kills it if it has not within 5 s. */
  async close(command: Command): Promise<void> {
    if (this.#child.exitCode !== null || this.#child.signalCode !== null) return;
    const exited = once(this.#child, 'exit');
    const guard = setTimeout(() => this.#child.kill('SIGKILL'), 5000);
    try {
      await this.call(command).catch(() => undefined);
      await exited;
    } finally {
      clearTimeout(guard);
    }
  }

  /** Kills the child at once (a start that failed). */
  kill(): void {
    this.#child.kill('SIGKILL');
  }
}

/** The child side of `ChildRpc`: answers each command with what `run` resolves or throws, and exits when the parent goes away. */
export function serveChildRpc<Command>(run: (command: Command) => Promise<unknown>): void {
  process.on('message', (message: { id: number; command: Command }) => {
    void run(message.command).then(
      (value) => process.send?.({ id: message.id, ok: true, value } satisfies Reply),
      (error: unknown) => process.send?.({ id: message.id, ok: false, error: error instanceof Error ? error.message : String(error) } satisfies Reply),
    );
  });
  process.on('disconnect', () => process.exit(0));
}
