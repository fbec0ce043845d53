import { expect } from 'vitest';
import type { TestHerald } from '../../support/test-herald.ts';

/** A gauge or counter read from the process's registry: summed over its series, or over those with `labels`. */
export async function metricValue(h: TestHerald, name: string, labels: Record<string, string> = {}): Promise<number> {
  const metric = h.herald.runtime.metrics.registry.getSingleMetric(name);
  if (metric === undefined) throw new Error(`no metric ${name}`);
  const { values } = await metric.get();
  const wanted = Object.entries(labels);
  const matching = values.filter((value) => wanted.every(([label, expected]) => value.labels[label] === expected));
  if (wanted.length > 0 && matching.length === 0) throw new Error(`no series of ${name} with ${JSON.stringify(labels)}`);
  return matching.reduce((sum, value) => sum + value.value, 0);
}

/**
 * Waits until the engine has nothing left to do: no task slice in hand and
 * nothing waiting on either topic for the fan-out or the senders.
 */
export async function waitForIdleEngine(h: TestHerald, timeoutMs = 15_000): Promise<void> {
  const { bus, topics, config } = h.herald.runtime;
  const prefix = config.bus.topicPrefix;
  await expect
    .poll(
      async () => {
        const lags = await Promise.all([bus.lag(`${prefix}herald-fanout`, topics.requests), bus.lag(`${prefix}herald-sender`, topics.tasks)]);
        return { lag: lags[0] + lags[1], inFlight: await metricValue(h, 'herald_push_tasks_in_flight') };
      },
      { timeout: timeoutMs, interval: 50, message: 'the engine to be idle (no lag on either topic, no slice in flight)' },
    )
    .toEqual({ lag: 0, inFlight: 0 });
}
