import { Histogram, Registry, collectDefaultMetrics } from 'prom-client';

/**
 * The one owner of prom-client in a process: a registry with the process
 * metrics and Herald's own, labelled by route and outcome rather than named
 * after them.
 */
export class Metrics {
  readonly registry = new Registry();
  readonly httpRequestSeconds: Histogram<'method' | 'route' | 'status'>;

  constructor() {
    collectDefaultMetrics({ register: this.registry, prefix: 'herald_' });
    this.httpRequestSeconds = new Histogram({
      name: 'herald_http_request_duration_seconds',
      help: 'HTTP requests by method, route template and status',
      labelNames: ['method', 'route', 'status'],
      buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5],
      registers: [this.registry],
    });
  }

  text(): Promise<string> {
    return this.registry.metrics();
  }

  get contentType(): string {
    return this.registry.contentType;
  }
}
