import { Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';

/** Reads the consumer lag of each group and topic this process consumes, at scrape time. */
export type LagReader = () => Promise<{ group: string; topic: string; lag: number }[]>;

/** Reads whether each backend of this process answers (what `/readyz` reports), at scrape time. */
export type DependencyReader = () => Promise<{ dependency: string; required: boolean; up: boolean }[]>;

/**
 * A process's prom-client registry with the metrics every role shares: the
 * process's own, HTTP requests, backend readiness, consumer lag and the
 * scheduler's. It knows no domain: the account and push metrics are
 * registered on `registry` by the runtime (`src/runtime/herald-metrics.ts`),
 * which hands each component the narrow interface it reports through.
 */
export class Metrics {
  readonly registry = new Registry();
  readonly httpRequestSeconds: Histogram<'method' | 'route' | 'status'>;
  readonly scheduledLatenessSeconds: Histogram;
  /** 1 while this process leads the scheduler, else 0 (also in processes without the role), so that "no scheduler leads" is a query, not an absence. */
  readonly schedulerLeading: Gauge;
  readonly #lagReaders: LagReader[] = [];
  #dependencies: DependencyReader | undefined;

  constructor() {
    const registers = [this.registry];
    collectDefaultMetrics({ register: this.registry, prefix: 'herald_' });
    this.httpRequestSeconds = new Histogram({
      name: 'herald_http_request_duration_seconds',
      help: 'HTTP requests by method, route template and status',
      labelNames: ['method', 'route', 'status'],
      buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5],
      registers,
    });
    this.scheduledLatenessSeconds = new Histogram({
      name: 'herald_scheduled_push_lateness_seconds',
      help: 'Time from a scheduled push_time to the push being handed to the fan-out',
      buckets: [0.1, 0.5, 1, 2, 5, 10, 30, 60, 300],
      registers,
    });
    this.schedulerLeading = new Gauge({ name: 'herald_scheduler_leading', help: 'Whether this process leads the scheduler (1) or not (0)', registers });
    const readers = this.#lagReaders;
    new Gauge({
      name: 'herald_bus_consumer_lag',
      help: 'Messages not yet handled by a consumer group, by group and topic',
      labelNames: ['group', 'topic'],
      registers,
      async collect() {
        this.reset();
        for (const read of readers) {
          try {
            for (const { group, topic, lag } of await read()) this.set({ group, topic }, lag);
          } catch {
            // The bus is away: no figure rather than a failed scrape.
          }
        }
      },
    });
    // An arrow function: collect() gets the gauge as `this`, and the reader is set after construction.
    const dependencies = () => this.#dependencies;
    new Gauge({
      name: 'herald_dependency_up',
      help: 'Whether a backend answers the readiness check of this process (1) or not (0), by dependency and whether the process needs it',
      labelNames: ['dependency', 'required'],
      registers,
      async collect() {
        this.reset();
        const read = dependencies();
        if (read === undefined) return;
        for (const { dependency, required, up } of await read()) this.set({ dependency, required: String(required) }, up ? 1 : 0);
      },
    });
  }

  /**
   * Reports `herald_dependency_up{dependency,required}` from `read`: 1 while
   * the backend answers, 0 while it does not. `required` is false for a
   * backend this process works without (the bus of an api-only node).
   */
  watchDependencies(read: DependencyReader): void {
    this.#dependencies = read;
  }

  /** Adds a consumer whose lag the registry reports. */
  addLagReader(read: LagReader): void {
    this.#lagReaders.push(read);
  }

  text(): Promise<string> {
    return this.registry.metrics();
  }

  get contentType(): string {
    return this.registry.contentType;
  }
}
