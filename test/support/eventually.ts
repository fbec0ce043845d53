import { setTimeout as sleep } from 'node:timers/promises';
import { inspect } from 'node:util';
import { defaultWaitMs, waitedMessage } from './with-deadline.ts';

export interface EventuallyOptions {
  /** How long to keep reading; default 10 s, well inside the 30 s test timeout. */
  timeoutMs?: number;
  /** Pause between reads; default 20 ms. */
  intervalMs?: number;
  /** More to say when it fails, beside the last reading (a process's output, say). */
  detail?: () => string;
}

type Reading<T> = { value: T } | { error: unknown } | 'pending';

/**
 * Reads until `done` holds of a reading, and answers that reading. A read that
 * throws counts as "not yet" (a service still starting); `done` throwing ends
 * the wait at once (a process that exited will never answer). Fails after
 * `timeoutMs` naming what it waited for and the last reading or error. Unlike
 * `expect.poll` it answers the value and works in hooks.
 */
export async function eventually<T>(
  what: string,
  read: () => T | Promise<T>,
  done: (value: T) => boolean = () => true,
  options: EventuallyOptions = {},
): Promise<T> {
  const timeoutMs = options.timeoutMs ?? defaultWaitMs;
  const deadline = performance.now() + timeoutMs;
  let answered: Reading<T> | null = null;
  for (;;) {
    // A read that hangs must not outlast the deadline either.
    const reading = await within(read, Math.max(0, deadline - performance.now()));
    if (reading !== 'pending' && 'value' in reading && done(reading.value)) return reading.value;
    if (reading === 'pending' || performance.now() >= deadline) {
      // A slow read under way at the deadline: what the one before it answered says more.
      const before = reading === 'pending' && answered !== null ? `, after ${describe(answered)}` : '';
      const seen = `${describe(reading)}${before}${options.detail === undefined ? '' : `; ${options.detail()}`}`;
      throw new Error(waitedMessage(timeoutMs, what, seen));
    }
    answered = reading;
    await sleep(options.intervalMs ?? 20);
  }
}

async function within<T>(read: () => T | Promise<T>, ms: number): Promise<Reading<T>> {
  const stop = new AbortController();
  try {
    return await Promise.race([
      Promise.resolve()
        .then(read)
        .then(
          (value) => ({ value }),
          (error: unknown) => ({ error }),
        ),
      sleep(ms, 'pending' as const, { signal: stop.signal }),
    ]);
  } finally {
    stop.abort();
  }
}

function describe(reading: Reading<unknown>): string {
  if (reading === 'pending') return 'a read still unanswered';
  if ('error' in reading) return `the error ${reading.error instanceof Error ? reading.error.message : inspect(reading.error)}`;
  return inspect(reading.value, { depth: 4, breakLength: Number.POSITIVE_INFINITY });
}
