import type { ScheduledPushStore } from '../../../src/core/ports/scheduled-push-store.ts';
import { withDeadline } from '../../support/with-deadline.ts';

/**
 * Counts the scheduler's looks for due pushes (`scheduled.due`), so that a
 * test can wait for a whole round that saw the clock as it is now, instead
 * of sleeping.
 */
export function watchSchedulerRounds(scheduled: ScheduledPushStore): { completed(timeoutMs?: number): Promise<void>; restore(): void } {
  const original = scheduled.due.bind(scheduled);
  let started = 0;
  let waiters: { target: number; resolve: () => void }[] = [];
  scheduled.due = (now, limit) => {
    started += 1;
    waiters = waiters.filter((waiter) => (waiter.target <= started ? (waiter.resolve(), false) : true));
    return original(now, limit);
  };
  return {
    /**
     * Resolves once a round that started after this call has ended, entries
     * moved and all: the scheduler reads the clock just before it looks, and
     * starts its next round only when the last one is over, so waiting for the
     * second look from now is enough.
     */
    completed(timeoutMs = 10_000) {
      const target = started + 2;
      const { promise, resolve } = Promise.withResolvers<void>();
      const waiter = { target, resolve };
      waiters.push(waiter);
      return withDeadline(promise, 'a whole scheduler round', { timeoutMs, seen: () => `${started} looks for due pushes, ${target} wanted` }).finally(() => {
        waiters = waiters.filter((other) => other !== waiter);
      });
    },
    restore() {
      scheduled.due = original;
    },
  };
}
