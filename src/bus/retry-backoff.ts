import type { RetryBackoff } from '../core/ports/bus.ts';

export const defaultRetryBackoff: Readonly<RetryBackoff> = Object.freeze({ initialDelayMs: 100, maxDelayMs: 30_000 });

/**
 * The wait after the `failures`-th consecutive failure of one message: doubling
 * from the initial delay up to the cap, with ±20% jitter so that partitions
 * which failed together (a dependency went down) do not retry in step.
 */
export function retryDelay(failures: number, backoff: RetryBackoff): number {
  const doubled = backoff.initialDelayMs * 2 ** Math.min(Math.max(failures - 1, 0), 30);
  const capped = Math.min(doubled, backoff.maxDelayMs);
  return Math.round(capped * (0.8 + Math.random() * 0.4));
}
