import type { GatewayName } from '../../../src/push/gateways/delivery.ts';
import type { GatewayMetrics } from '../../../src/push/gateways/gateway-metrics.ts';

/** Gateway metrics kept in memory for assertions. */
export class RecordingMetrics implements GatewayMetrics {
  readonly latencies: { gateway: GatewayName; seconds: number }[] = [];
  readonly retries: { gateway: GatewayName; reason: string }[] = [];
  sessionsOpen = 0;
  sessionsOpened = 0;
  readonly #streams = new Set<() => number>();
  #openWaiters: { count: number; resolve: () => void }[] = [];

  observeLatency(gateway: GatewayName, seconds: number): void {
    this.latencies.push({ gateway, seconds });
  }

  sessionOpened(): void {
    this.sessionsOpen++;
    this.sessionsOpened++;
    this.#wake();
  }

  sessionClosed(): void {
    this.sessionsOpen--;
    this.#wake();
  }

  /** Resolves when exactly `count` sessions are open. */
  untilSessionsOpen(count: number): Promise<void> {
    if (this.sessionsOpen === count) return Promise.resolve();
    return new Promise((resolve) => this.#openWaiters.push({ count, resolve }));
  }

  #wake(): void {
    const ready = this.#openWaiters.filter((waiter) => waiter.count === this.sessionsOpen);
    this.#openWaiters = this.#openWaiters.filter((waiter) => waiter.count !== this.sessionsOpen);
    for (const waiter of ready) waiter.resolve();
  }

  trackStreams(_gateway: GatewayName, read: () => number): () => void {
    this.#streams.add(read);
    return () => this.#streams.delete(read);
  }

  retried(gateway: GatewayName, reason: string): void {
    this.retries.push({ gateway, reason });
  }

  /** Streams in flight over every tracked client, as a scrape would read them. */
  streams(): number {
    let total = 0;
    for (const read of this.#streams) total += read();
    return total;
  }

  get trackedClients(): number {
    return this.#streams.size;
  }
}
