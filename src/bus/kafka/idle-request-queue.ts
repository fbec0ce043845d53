import { createRequire } from 'node:module';

/** The part of kafkajs's per-connection RequestQueue this module replaces and reads. */
interface RequestQueueInternals {
  pending: unknown[];
  throttledUntil: number;
  throttleCheckTimeoutId: NodeJS.Timeout | null;
  checkPendingRequests(): void;
  scheduleCheckPendingRequests(): void;
}

/** kafkajs's interval for a waiting request when no throttle is in force. */
const recheckMs = 10;

let installed = false;

/**
 * kafkajs 2.2.4 arms a timer on each broker connection after every answer,
 * whether or not a request waits, and the timer arms the next one: each
 * connection runs a timer about every millisecond for as long as the process
 * lives (kafkajs issues 1704 and 1751; on Node 24 each one also logs a
 * TimeoutNegativeWarning, since the delay is `throttledUntil - Date.now()`
 * with `throttledUntil` at -1). An idle producer and admin client cost
 * 363 ms of CPU and 8,188 timers in 5 s on our machines.
 *
 * Replaced with the same rule, armed only while requests wait: a request is
 * only ever queued by `push`, which schedules the check itself, and every
 * answer or timeout checks the queue again; so with nothing pending there
 * is nothing to wake up for. Waiting requests are checked when the client
 * side throttle ends, or after kafkajs's 10 ms interval.
 *
 * Applied once per process, before the first Kafka client is made; throws
 * when kafkajs no longer has the method, so that an upgrade is looked at
 * (and this removed once kafkajs fixes the loop).
 */
export function quietKafkaRequestQueues(): void {
  if (installed) return;
  const require = createRequire(import.meta.url);
  const RequestQueue = require('kafkajs/src/network/requestQueue/index.js') as { prototype: RequestQueueInternals };
  if (typeof RequestQueue.prototype.scheduleCheckPendingRequests !== 'function') {
    throw new Error('kafkajs RequestQueue has no scheduleCheckPendingRequests: review src/bus/kafka/idle-request-queue.ts for this kafkajs version');
  }
  RequestQueue.prototype.scheduleCheckPendingRequests = function scheduleCheckPendingRequests(this: RequestQueueInternals): void {
    if (this.throttleCheckTimeoutId !== null && this.throttleCheckTimeoutId !== undefined) return;
    if (this.pending.length === 0) return;
    const untilUnthrottled = this.throttledUntil - Date.now();
    this.throttleCheckTimeoutId = setTimeout(
      () => {
        this.throttleCheckTimeoutId = null;
        this.checkPendingRequests();
      },
      untilUnthrottled > 0 ? untilUnthrottled : recheckMs,
    );
  };
  installed = true;
}
