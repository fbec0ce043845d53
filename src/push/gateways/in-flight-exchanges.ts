import { performance } from 'node:perf_hooks';
import type { GatewayName } from './delivery.ts';
import type { GatewayMetrics } from './gateway-metrics.ts';
import type { TransportFailure } from './transport-failure.ts';

/** An exchange as `InFlightExchanges` sees it. */
export interface TimedExchange {
  /** `performance.now()` when the request was handed to the transport. */
  readonly startedAt: number;
  /** `performance.now()` after which the exchange times out. */
  readonly deadline: number;
  /** HTTP status of the answer; 0 while none has arrived. */
  readonly status: number;
  /** Settles without an answer. */
  fail(failure: TransportFailure): void;
}

const timeoutFailure = { reason: 'Timeout', retryable: true } as const;

/**
 * The requests a transport holds, from the moment it takes them until they
 * settle: they time out at their deadline, each answer's latency is
 * observed, the streams gauge reads their number, and `drained()` tells a
 * closing transport when none is left. Every exchange has the same timeout,
 * so start order is deadline order and the sweep stops at the first that is
 * not due.
 */
export class InFlightExchanges<E extends TimedExchange> {
  readonly #gateway: GatewayName;
  readonly #metrics: GatewayMetrics;
  readonly #exchanges = new Set<E>();
  readonly #sweeper: NodeJS.Timeout;
  readonly #untrack: () => void;
  #drained: (() => void) | undefined;

  constructor(gateway: GatewayName, requestTimeoutMs: number, metrics: GatewayMetrics) {
    this.#gateway = gateway;
    this.#metrics = metrics;
    const sweepEvery = Math.max(5, Math.min(1000, Math.floor(requestTimeoutMs / 8)));
    this.#sweeper = setInterval(() => this.#sweep(), sweepEvery).unref();
    this.#untrack = metrics.trackStreams(gateway, () => this.#exchanges.size);
  }

  get size(): number {
    return this.#exchanges.size;
  }

  add(exchange: E): void {
    this.#exchanges.add(exchange);
  }

  /** Forgets a settled exchange (once; later calls do nothing) and observes its latency if it was answered. */
  settled(exchange: E): void {
    if (!this.#exchanges.delete(exchange)) return;
    if (exchange.status !== 0) this.#metrics.observeLatency(this.#gateway, (performance.now() - exchange.startedAt) / 1000);
    if (this.#exchanges.size === 0) this.#drained?.();
  }

  /** Resolves once nothing is in flight (each exchange ends by its deadline at the latest), then stops the sweep and the gauge. */
  async drained(): Promise<void> {
    if (this.#exchanges.size > 0) await new Promise<void>((resolve) => (this.#drained = resolve));
    clearInterval(this.#sweeper);
    this.#untrack();
  }

  #sweep(): void {
    if (this.#exchanges.size === 0) return;
    const now = performance.now();
    for (const exchange of this.#exchanges) {
      if (exchange.deadline > now) break;
      exchange.fail(timeoutFailure);
    }
  }
}
