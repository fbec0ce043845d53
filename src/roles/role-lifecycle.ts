import type { RoleState, RoleStatus } from './role.ts';

/**
 * The state machine every role shares, so that each role writes only what it
 * does on start and on close: `close` runs the drain once however often it is
 * called, and a start that throws leaves the role `failed`.
 */
export class RoleLifecycle {
  #state: RoleState = 'starting';
  #error: string | undefined;
  #closing: Promise<void> | undefined;

  get state(): RoleState {
    return this.#state;
  }

  /** Why the role failed, when it did. */
  get error(): string | undefined {
    return this.#error;
  }

  /** The status a role reports; `detail` only while it runs. */
  status(detail?: () => Record<string, unknown>): RoleStatus {
    const status: RoleStatus = { state: this.#state };
    if (this.#error !== undefined) status.error = this.#error;
    if (detail !== undefined && this.#state === 'running') status.detail = detail();
    return status;
  }

  async start(run: () => Promise<void>): Promise<void> {
    try {
      await run();
      if (this.#state === 'starting') this.#state = 'running';
    } catch (error) {
      this.fail(error);
      throw error;
    }
  }

  /** Marks a running role as unable to work until the process restarts. */
  fail(error: unknown): void {
    if (this.#state === 'draining' || this.#state === 'closed') return;
    this.#state = 'failed';
    this.#error = error instanceof Error ? error.message : String(error);
  }

  close(drain: () => Promise<void>): Promise<void> {
    this.#closing ??= (async () => {
      this.#state = 'draining';
      try {
        await drain();
      } finally {
        this.#state = 'closed';
      }
    })();
    return this.#closing;
  }
}
