import { setTimeout as delay } from 'node:timers/promises';
import { retryDelay } from '../../core/retry-delay.ts';
import { cassandraFailureKind } from './cassandra-errors.ts';

/** The part of a logger the start-up steps use; a pino logger fits. */
export interface StartupLogger {
  info(fields: object, message: string): void;
  warn(fields: object, message: string): void;
}

export interface StartupRetryOptions {
  /** How long all the steps together may keep retrying (default 90 s). */
  budgetMs?: number;
  /** The first pause between tries, doubled up to `maxPauseMs` (defaults 250 ms and 5 s), each ±20%. */
  firstPauseMs?: number;
  maxPauseMs?: number;
}

/**
 * Runs the steps a node takes on Cassandra before it serves (migrations, the
 * shard count), trying a step again while Cassandra is reachable but did not
 * answer in time: a replica timeout, overload, or a lightweight transaction
 * whose outcome is unknown. A cluster catching up after a node restarted
 * answers so for a while, and a node that gave up at the first one would
 * not start at all. Every step so retried must be safe to run twice. Other
 * failures (credentials, too few replicas, a fault in Herald) end at once;
 * so does the last timeout once the budget is spent.
 */
export function startupRetry(logger: StartupLogger | undefined, options: StartupRetryOptions = {}): <T>(step: string, work: () => Promise<T>) => Promise<T> {
  const deadline = Date.now() + (options.budgetMs ?? 90_000);
  // Jittered, so that nodes contending for one row (the schema lease) do not try again in step.
  const backoff = { initialDelayMs: options.firstPauseMs ?? 250, maxDelayMs: options.maxPauseMs ?? 5000 };
  return async (step, work) => {
    for (let attempt = 1; ; attempt++) {
      try {
        return await work();
      } catch (error) {
        const pauseMs = retryDelay(attempt, backoff);
        if (cassandraFailureKind(error) !== 'congested' || Date.now() + pauseMs > deadline) throw error;
        const reason = error instanceof Error ? error.message : String(error);
        logger?.warn({ step, attempt, reason, retryInMs: pauseMs }, 'Cassandra did not answer a start-up step in time; trying it again');
        await delay(pauseMs);
      }
    }
  };
}
