/** Exponential backoff: the delay after the first failure, doubling with each further one up to the cap. */
export interface Backoff {
  initialDelayMs: number;
  maxDelayMs: number;
}

/**
 * The wait after the `failures`-th consecutive failure: doubling from the
 * initial delay up to the cap, with ±20% jitter so that callers which failed
 * together (a dependency went down, one contended row) do not retry in step.
 */
export function retryDelay(failures: number, backoff: Backoff): number {
  const doubled = backoff.initialDelayMs * 2 ** Math.min(Math.max(failures - 1, 0), 30);
  const capped = Math.min(doubled, backoff.maxDelayMs);
  return Math.round(capped * (0.8 + Math.random() * 0.4));
}
