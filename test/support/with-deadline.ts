// Real timers even under vi.useFakeTimers, which patches only the globals:
// a deadline must pass while a test holds fake time still.
import { clearTimeout, setTimeout } from 'node:timers';

export interface DeadlineOptions {
  /** How long to wait before failing; default 10 s, well inside the 30 s test timeout. */
  timeoutMs?: number;
  /** What was seen so far, for the failure message: what arrived instead, a count, a state. */
  seen?: () => string;
}

/** The default of every wait in the tests: long enough for a loaded machine, short enough to fail before the test timeout. */
export const defaultWaitMs = 10_000;

/**
 * Waits for `event` (a promise that settles when something happens), failing
 * after `timeoutMs` with what it waited for and what it saw, rather than
 * letting the test time out with no word of what was missing.
 */
export function withDeadline<T>(event: Promise<T>, what: string, options: DeadlineOptions = {}): Promise<T> {
  const timeoutMs = options.timeoutMs ?? defaultWaitMs;
  let timer: NodeJS.Timeout | undefined;
  const expired = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(new Error(waitedMessage(timeoutMs, what, options.seen?.()))), timeoutMs);
  });
  return Promise.race([event, expired]).finally(() => clearTimeout(timer));
}

/** `waited <ms> ms for <what>; saw <seen>`: the one wording of every timed-out wait. */
export function waitedMessage(timeoutMs: number, what: string, seen: string | undefined): string {
  return `waited ${timeoutMs} ms for ${what}${seen === undefined ? '' : `; saw ${seen}`}`;
}
