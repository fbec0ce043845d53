import { performance } from 'node:perf_hooks';
import { failureWithCause, h2Failures, type H2Failure } from './h2-failure.ts';

/** An exchange as `InFlightExchanges` sees it. */
export interface TimedExchange {
  /** `performance.now()` when the request was handed to the pool. */
  readonly startedAt: number;
  /** `performance.now()` after which the exchange times out. */
  readonly deadline: number;
  /** HTTP status of the answer; 0 while none has arrived. */
  readonly status: number;
  /** Settles without an answer. */
  fail(failure: H2Failure): void;
}

/** Told the latency of each answer. */
export interface AnswerObserver {
  /** An answer arrived `seconds` after its request was handed to the pool. */
  answered(seconds: number): void;
}

/**
 * The requests a pool holds, from the moment it takes them until they
 * settle: they time out at their deadline, each answer's latency goes to
 * the observer, and `drained()` tells a closing pool when none is left. Every
 * exchange has the same timeout, so start order is deadline order and the
 * sweep stops at the first that is not due.
 */
export class InFlightExchanges<E extends TimedExchange> {
  readonly #observer: AnswerObserver | undefined;
  readonly #exchanges = new Set<E>();
  readonly #sweeper: NodeJS.Timeout;
  readonly #atDeadline: (exchange: E) => H2Failure;
  #drained: (() => void) | undefined;

  /**
   * `atDeadline` says why an exchange that reached its deadline failed;
   * default a `Timeout` saying how long it waited.
   */
  constructor(requestTimeoutMs: number, observer?: AnswerObserver, atDeadline?: (exchange: E) => H2Failure) {
    this.#observer = observer;
    const timeout = failureWithCause(h2Failures.timeout, `no answer within ${requestTimeoutMs} ms`);
    this.#atDeadline = atDeadline ?? (() => timeout);
    const sweepEvery = Math.max(5, Math.min(1000, Math.floor(requestTimeoutMs / 8)));
    this.#sweeper = setInterval(() => this.#sweep(), sweepEvery).unref();
  }

  get size(): number {
    return this.#exchanges.size;
  }

  add(exchange: E): void {
    this.#exchanges.add(exchange);
  }

  /** Forgets a settled exchange (once; later calls do nothing) and reports its latency if it was answered. */
  settled(exchange: E): void {
    if (!this.#exchanges.delete(exchange)) return;
    if (exchange.status !== 0) this.#observer?.answered((performance.now() - exchange.startedAt) / 1000);
    if (this.#exchanges.size === 0) this.#drained?.();
  }

  /** Resolves once nothing is in flight (each exchange ends by its deadline at the latest), then stops the sweep. */
  async drained(): Promise<void> {
    if (this.#exchanges.size > 0) await new Promise<void>((resolve) => (this.#drained = resolve));
    clearInterval(this.#sweeper);
  }

  #sweep(): void {
    if (this.#exchanges.size === 0) return;
    const now = performance.now();
    for (const exchange of this.#exchanges) {
      if (exchange.deadline > now) break;
      exchange.fail(this.#atDeadline(exchange));
    }
  }
}
