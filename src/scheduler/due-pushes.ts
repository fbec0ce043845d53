import type { PushTopics } from '../push/push-topics.ts';
import type { Clock } from '../core/clock.ts';
import type { Logger } from '../core/logger.ts';
import type { OutgoingMessage } from '../core/ports/bus.ts';
import type { Store } from '../core/ports/object-store.ts';
import { encodeMessage } from '../push/push-messages.ts';

export interface DuePushesDeps {
  store: Store;
  bus: { publish(topic: string, messages: readonly OutgoingMessage[]): Promise<void> };
  topics: PushTopics;
  clock: Clock;
  logger: Logger;
  /** Seconds between an entry's push_time and its move, per entry. */
  observeLateness(seconds: number): void;
}

/** Entries moved per round; a backlog is worked through round after round. */
const batch = 200;

/**
 * Moves scheduled pushes whose push_time has come onto `push.requests`, for
 * the fan-out. An entry is published first and removed after, so a crash in
 * between publishes it again rather than losing it; the fan-out ignores a
 * push it has already fanned out, so moving twice (two schedulers around a
 * lease change) is harmless. A push cancelled meanwhile has no record and
 * is dropped by the fan-out.
 */
export class DuePushes {
  readonly #deps: DuePushesDeps;

  constructor(deps: DuePushesDeps) {
    this.#deps = deps;
  }

  /** One round; answers how many entries it moved. */
  async moveDue(): Promise<number> {
    const { store, bus, topics, clock } = this.#deps;
    const now = clock.now();
    const due = await store.scheduled.due(now, batch);
    for (const entry of due) {
      await bus.publish(topics.requests, [{ key: entry.pushId, value: encodeMessage({ appId: entry.appId, pushId: entry.pushId }) }]);
      await store.scheduled.remove(entry.appId, entry.id);
      this.#deps.observeLateness(Math.max(0, now - entry.dueAt) / 1000);
    }
    if (due.length > 0) this.#deps.logger.debug({ moved: due.length }, 'scheduled pushes moved to the fan-out');
    return due.length;
  }
}
