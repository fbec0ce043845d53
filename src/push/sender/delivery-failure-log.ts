import type { Clock } from '../../core/clock.ts';
import type { Logger } from '../../core/logger.ts';
import type { GatewayName } from '../gateways/delivery.ts';
import type { TalliedOutcome } from './delivery-tally.ts';

/** A device that was not delivered, as the log tells it. */
export interface DeliveryFailure {
  appId: string;
  pushId: string;
  gateway: GatewayName;
  outcome: Exclude<TalliedOutcome, 'delivered'>;
  /** One of the documented reasons. */
  reason: string;
  /** What the system or the gateway said, when known (`connect ECONNREFUSED …`, the TLS error, the token endpoint's answer). */
  cause: string | undefined;
}

/** What the deliveries tell about the devices they could not deliver. */
export interface DeliveryFailures {
  failed(failure: DeliveryFailure): void;
}

export interface DeliveryFailureLogOptions {
  logger: Logger;
  clock: Clock;
  /** After the first line about an app, gateway and reason, at most one line per this many ms (clock time) with the count; default a minute. */
  intervalMs?: number;
  /** How often (real time) counts whose interval is over are written, should no further failure come to write them; default 1 s. */
  sweepMs?: number;
}

interface Held {
  failure: DeliveryFailure;
  /** Clock time the current interval began. */
  since: number;
  /** Failures since `since` that made no line of their own. */
  count: number;
}

/** Kinds (app, gateway, reason) followed at once; apps and reasons are bounded, this bounds what a bug could make of them. */
const maxKinds = 1024;

/**
 * The sender's warn lines about devices it could not deliver, throttled per
 * app, gateway and reason: the first failure of a kind is written at once,
 * with its cause; the further ones are counted, and once the interval (a
 * minute) is over one line gives their count and the latest cause, then
 * again each interval while they go on. A kind that stayed quiet a whole
 * interval is forgotten, so its next failure is written at once again.
 * Counts still held are written when the log closes.
 *
 * Only failures reach it: a delivered device costs nothing here.
 */
export class DeliveryFailureLog implements DeliveryFailures {
  readonly #logger: Logger;
  readonly #clock: Clock;
  readonly #intervalMs: number;
  readonly #sweepMs: number;
  readonly #kinds = new Map<string, Held>();
  #sweeper: NodeJS.Timeout | undefined;

  constructor(options: DeliveryFailureLogOptions) {
    this.#logger = options.logger;
    this.#clock = options.clock;
    this.#intervalMs = options.intervalMs ?? 60_000;
    this.#sweepMs = options.sweepMs ?? 1000;
  }

  failed(failure: DeliveryFailure): void {
    const key = `${failure.appId}\u0000${failure.gateway}\u0000${failure.reason}`;
    const now = this.#clock.now();
    const held = this.#kinds.get(key);
    if (held === undefined) {
      if (this.#kinds.size >= maxKinds) this.#kinds.delete(this.#kinds.keys().next().value as string);
      this.#kinds.set(key, { failure, since: now, count: 0 });
      this.#first(failure);
      this.#sweeper ??= setInterval(() => this.#sweep(), this.#sweepMs).unref();
      return;
    }
    held.failure = failure;
    if (now - held.since < this.#intervalMs) {
      held.count += 1;
      return;
    }
    if (held.count === 0) {
      // Quiet a whole interval (the sweep had not come by yet): a first line again.
      held.since = now;
      this.#first(failure);
      return;
    }
    held.count += 1;
    this.#summary(held, now);
  }

  /** Writes the counts still held and stops; later failures start afresh. Idempotent. */
  close(): void {
    const now = this.#clock.now();
    for (const held of this.#kinds.values()) if (held.count > 0) this.#summary(held, now);
    this.#kinds.clear();
    this.#stopSweeping();
  }

  /** Writes the counts whose interval is over and forgets the kinds that stayed quiet a whole interval. */
  #sweep(): void {
    const now = this.#clock.now();
    for (const [key, held] of this.#kinds) {
      if (now - held.since < this.#intervalMs) continue;
      if (held.count > 0) this.#summary(held, now);
      else this.#kinds.delete(key);
    }
    if (this.#kinds.size === 0) this.#stopSweeping();
  }

  #stopSweeping(): void {
    clearInterval(this.#sweeper);
    this.#sweeper = undefined;
  }

  #first(failure: DeliveryFailure): void {
    const { appId, pushId, gateway, outcome, reason, cause } = failure;
    this.#logger.warn(
      { app: appId, push: pushId, gateway, outcome, reason, cause },
      `delivery ${outcome === 'not-sent' ? 'not sent' : outcome === 'failed' ? 'failed' : 'refused: invalid token'}: ${reason}; more of this app, gateway and reason are counted, one line a minute`,
    );
  }

  #summary(held: Held, now: number): void {
    const { appId, pushId, gateway, outcome, reason, cause } = held.failure;
    this.#logger.warn(
      { app: appId, push: pushId, gateway, outcome, reason, cause, count: held.count, sinceMs: now - held.since },
      `${held.count} more ${held.count === 1 ? 'delivery' : 'deliveries'} of this app and gateway ended ${reason} since the last line; the latest cause and push shown`,
    );
    held.since = now;
    held.count = 0;
  }
}
