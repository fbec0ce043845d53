import type { Logger } from './logger.ts';

/**
 * Fire-and-forget work (mail, SMS) started by a request: failures are logged,
 * never thrown at the caller, and `drain()` waits for what is still running.
 */
export class BackgroundTasks {
  private readonly running = new Set<Promise<void>>();
  private readonly logger: Logger;

  constructor(logger: Logger) {
    this.logger = logger;
  }

  run(label: string, task: () => Promise<void>): void {
    const promise = Promise.resolve()
      .then(task)
      .catch((error: unknown) => this.logger.error({ err: error, task: label }, 'background task failed'))
      .finally(() => this.running.delete(promise));
    this.running.add(promise);
  }

  async drain(): Promise<void> {
    while (this.running.size > 0) await Promise.allSettled([...this.running]);
  }
}
