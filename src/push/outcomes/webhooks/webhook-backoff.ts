/** The backoff settings of `push.webhooks`. */
export interface WebhookBackoff {
  readonly retryBaseDelayMs: number;
  readonly retryMaxDelayMs: number;
}

/**
 * How long to wait before attempt `attempt + 1` of a batch: the endpoint's
 * `Retry-After` when it gave one, else exponential backoff with jitter,
 * between half and all of `base × 2^(attempt − 1)`; capped by
 * `retryMaxDelayMs` either way. The jitter spreads the retries of many
 * processes whose batches failed together; its lower half keeps the waits
 * growing.
 */
export function webhookRetryDelay(attempt: number, backoff: WebhookBackoff, retryAfterMs: number | undefined, random: () => number = Math.random): number {
  if (retryAfterMs !== undefined) return Math.min(backoff.retryMaxDelayMs, Math.max(0, retryAfterMs));
  const ceiling = Math.min(backoff.retryMaxDelayMs, backoff.retryBaseDelayMs * 2 ** Math.min(Math.max(attempt - 1, 0), 30));
  return Math.round(ceiling / 2 + (random() * ceiling) / 2);
}
