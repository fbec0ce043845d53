import type { Clock } from '../../../core/clock.ts';
import type { Logger } from '../../../core/logger.ts';
import type { WebhookEventType, WebhookSettings } from '../../../config/webhooks-schema.ts';
import type { WebhookEvent } from './webhook-event.ts';
import { WebhookEndpointQueue, type WebhookEndpoint } from './webhook-endpoint-queue.ts';
import { WebhookHttp } from './webhook-http.ts';
import type { WebhookMetrics } from './webhook-metrics.ts';

export interface WebhooksDeps {
  endpoints: readonly WebhookEndpoint[];
  settings: WebhookSettings;
  /** PEM CAs trusted instead of the system roots (`push.gateways.caFile`). */
  ca: string | Buffer | undefined;
  clock: Clock;
  logger: Logger;
  metrics: WebhookMetrics;
  random?: () => number;
}

/**
 * The webhooks of one process: a bounded queue per configured endpoint
 * (`WebhookEndpointQueue`), fed by whatever in the process learns of an
 * event (the senders' slices, the checks that see a push end). Each process
 * sends its own events; nothing is shared between processes
 * (docs/webhooks.md, "Where webhooks are sent from").
 */
export class Webhooks {
  readonly #queues: Map<string, WebhookEndpointQueue[]>;
  readonly #interest: Map<string, ReadonlySet<WebhookEventType>>;
  readonly #http: WebhookHttp;
  readonly #drainMs: number;
  #closed: Promise<void> | undefined;

  constructor(deps: WebhooksDeps) {
    const { settings } = deps;
    this.#drainMs = settings.shutdownDrainMs;
    this.#http = new WebhookHttp({ ca: deps.ca, requestTimeoutMs: settings.requestTimeoutMs });
    this.#queues = new Map();
    this.#interest = new Map();
    for (const endpoint of deps.endpoints) {
      const queue = new WebhookEndpointQueue({
        endpoint,
        settings,
        http: this.#http,
        clock: deps.clock,
        logger: deps.logger,
        metrics: deps.metrics,
        ...(deps.random === undefined ? {} : { random: deps.random }),
      });
      this.#queues.set(endpoint.appId, [...(this.#queues.get(endpoint.appId) ?? []), queue]);
      this.#interest.set(endpoint.appId, new Set([...(this.#interest.get(endpoint.appId) ?? []), ...endpoint.events]));
    }
  }

  /** The event types some endpoint of the app takes; empty when it has none. */
  interestOf(appId: string): ReadonlySet<WebhookEventType> {
    return this.#interest.get(appId) ?? noInterest;
  }

  /** Queues the events for each endpoint of the app that takes their type. Never waits. */
  emit(appId: string, events: readonly WebhookEvent[]): void {
    if (events.length === 0) return;
    for (const queue of this.#queues.get(appId) ?? []) {
      const takes = queue.endpoint.events;
      queue.offer(events.every((event) => takes.has(event.type)) ? events : events.filter((event) => takes.has(event.type)));
    }
  }

  /** Events waiting or in flight for an endpoint. */
  queued(appId: string, endpoint: string): number {
    return this.#queues.get(appId)?.find((queue) => queue.endpoint.name === endpoint)?.size ?? 0;
  }

  /** Sends what is queued for at most `push.webhooks.shutdownDrainMs`, drops the rest (counted), closes the connections. Idempotent. */
  close(): Promise<void> {
    this.#closed ??= (async () => {
      await Promise.all([...this.#queues.values()].flat().map((queue) => queue.close(this.#drainMs)));
      await this.#http.close();
    })();
    return this.#closed;
  }
}

const noInterest: ReadonlySet<WebhookEventType> = new Set();
