import { setTimeout as sleep } from 'node:timers/promises';
import type { Clock } from '../../../core/clock.ts';
import type { Logger } from '../../../core/logger.ts';
import type { PushStore } from '../../../core/ports/push-store.ts';
import { viewPushRecord } from '../../records/push-record.ts';
import type { PushEnds } from '../push-ends.ts';
import type { Webhooks } from './webhooks.ts';

export interface PushDoneWatchDeps {
  pushes: Pick<PushStore, 'get'>;
  webhooks: Pick<Webhooks, 'interestOf' | 'emit'>;
  clock: Clock;
  logger: Logger;
  /** Waits before the second and third read of a record that could not be read; default 1 s and 5 s. */
  retryDelaysMs?: readonly number[];
}

/** Records read at once. */
const concurrency = 4;
/** Pushes waiting to be read at most; more are not watched (their push.done is not sent), and logged. */
const maxWaiting = 10_000;

/**
 * Sends `push.done` with the push's final record (as
 * `GET /1.1/notifications/<id>` shows it) when a push it is told about reads
 * `done` or `Error`. Only for apps with an endpoint that takes `push.done`;
 * the reads run beside the work that told it, a few at a time, and several
 * calls for one push waiting to be read make one read.
 *
 * At least once: two processes that each record a final slice of the same
 * push may both read it done and both send the event, under the same id.
 * A push none of them reads done (its last process died between recording
 * and reading) sends none.
 */
export class PushDoneWatch implements PushEnds {
  readonly #deps: PushDoneWatchDeps;
  readonly #waiting = new Map<string, string>();
  #reading = 0;
  #idle: PromiseWithResolvers<void> | null = null;

  constructor(deps: PushDoneWatchDeps) {
    this.#deps = deps;
  }

  mayHaveEnded(appId: string, pushId: string): void {
    if (!this.#deps.webhooks.interestOf(appId).has('push.done')) return;
    const key = `${appId}/${pushId}`;
    if (this.#waiting.has(key)) return;
    if (this.#waiting.size >= maxWaiting) {
      this.#deps.logger.warn({ app: appId, push: pushId }, 'too many pushes waiting for their push.done check: this one is not watched');
      return;
    }
    this.#waiting.set(key, appId);
    this.#pump();
  }

  /** Resolves once no read is waiting or running (tests, and a closing process). */
  settled(): Promise<void> {
    if (this.#waiting.size === 0 && this.#reading === 0) return Promise.resolve();
    this.#idle ??= Promise.withResolvers<void>();
    return this.#idle.promise;
  }

  #pump(): void {
    while (this.#reading < concurrency && this.#waiting.size > 0) {
      const [key, appId] = this.#waiting.entries().next().value as [string, string];
      this.#waiting.delete(key);
      this.#reading += 1;
      void this.#check(appId, key.slice(appId.length + 1)).finally(() => {
        this.#reading -= 1;
        this.#pump();
        if (this.#waiting.size === 0 && this.#reading === 0) {
          this.#idle?.resolve();
          this.#idle = null;
        }
      });
    }
  }

  async #check(appId: string, pushId: string): Promise<void> {
    const delays = this.#deps.retryDelaysMs ?? [1000, 5000];
    for (let attempt = 0; ; attempt += 1) {
      try {
        const record = await this.#deps.pushes.get(appId, pushId);
        if (record !== null && (record.status === 'done' || record.status === 'Error')) {
          this.#deps.webhooks.emit(appId, [{ type: 'push.done', pushId, at: this.#deps.clock.now(), record: viewPushRecord(record) }]);
        }
        return;
      } catch (error) {
        const delay = delays[attempt];
        if (delay === undefined) {
          this.#deps.logger.warn({ err: error, app: appId, push: pushId }, 'push record unreadable: its push.done is not sent');
          return;
        }
        await sleep(delay);
      }
    }
  }
}
