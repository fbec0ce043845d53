import { setTimeout as wait } from 'node:timers/promises';
import type { DeliveryOutcome, GatewayClient } from './delivery.ts';
import type { GatewayMetrics } from './gateway-metrics.ts';

/** How often and how patiently a `retry` outcome is sent again. */
export interface RetryPolicy {
  /** Sends in all, the first included; 1 never retries. */
  maxAttempts: number;
  /** Backoff before the first resend; doubled for each further one. */
  baseDelayMs: number;
  /** Cap of the exponential backoff. */
  maxDelayMs: number;
  /** Cap of a gateway's `Retry-After`, so one answer cannot park a sender for long. */
  maxRetryAfterMs: number;
}

export const defaultRetryPolicy: RetryPolicy = Object.freeze({ maxAttempts: 5, baseDelayMs: 250, maxDelayMs: 10_000, maxRetryAfterMs: 60_000 });

export interface RetryOptions {
  policy: RetryPolicy;
  metrics?: Pick<GatewayMetrics, 'retried'>;
  /** Aborting stops between attempts: the promise rejects with the signal's reason and nothing more is sent. */
  signal?: AbortSignal;
  /** Waits `ms`; default a timer. Tests pass one that records the delays. */
  delay?: (ms: number, signal: AbortSignal | undefined) => Promise<void>;
  /** Source of jitter in [0, 1); default Math.random. */
  random?: () => number;
}

/**
 * Sends `delivery` and, while the outcome is `retry`, waits and sends again,
 * at most `maxAttempts` times in all; a delivery is only ever resent after an
 * attempt classified `retry`. Answers the final outcome: after the last
 * attempt a `retry` becomes `failed` with its reason and cause.
 */
export async function deliverWithRetry<D>(client: GatewayClient<D>, delivery: D, options: RetryOptions): Promise<DeliveryOutcome> {
  const { policy, signal } = options;
  signal?.throwIfAborted();
  let outcome = await client.send(delivery);
  for (let attempt = 1; outcome.kind === 'retry'; attempt++) {
    if (attempt >= policy.maxAttempts) return { kind: 'failed', reason: outcome.reason, cause: outcome.cause };
    options.metrics?.retried(client.gateway, outcome.reason);
    const ms = retryDelayMs(policy, attempt, outcome.retryAfterMs, options.random ?? Math.random);
    try {
      await (options.delay ?? timer)(ms, signal);
    } catch (error) {
      throw signal?.aborted === true ? signal.reason : error;
    }
    signal?.throwIfAborted();
    outcome = await client.send(delivery);
  }
  return outcome;
}

/**
 * The wait before resend number `attempt` (from 1): exponential backoff with
 * "equal jitter" (half fixed, half random, so resends spread out but never
 * come at once), or the gateway's `Retry-After` (capped) when that is longer.
 */
export function retryDelayMs(policy: RetryPolicy, attempt: number, retryAfterMs: number | undefined, random: () => number): number {
  const step = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** (attempt - 1));
  const backoff = step / 2 + (random() * step) / 2;
  return retryAfterMs === undefined ? backoff : Math.max(backoff, Math.min(retryAfterMs, policy.maxRetryAfterMs));
}

function timer(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return wait(ms, undefined, signal === undefined ? undefined : { signal });
}
