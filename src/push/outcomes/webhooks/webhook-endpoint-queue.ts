import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Clock } from '../../../core/clock.ts';
import type { Logger } from '../../../core/logger.ts';
import type { WebhookEventType, WebhookSettings } from '../../../config/webhooks-schema.ts';
import { LogThrottle } from '../../gateways/log-throttle.ts';
import { webhookRetryDelay } from './webhook-backoff.ts';
import { webhookBody, type WebhookEvent } from './webhook-event.ts';
import type { WebhookAnswer, WebhookHttp } from './webhook-http.ts';
import { requestResultOf, type WebhookDropReason, type WebhookMetrics } from './webhook-metrics.ts';
import { webhookSignature, webhookSignatureHeader } from './webhook-signature.ts';

/** One configured endpoint of one app, its secret read. */
export interface WebhookEndpoint {
  readonly appId: string;
  readonly name: string;
  readonly url: URL;
  readonly secret: string;
  readonly events: ReadonlySet<WebhookEventType>;
}

export interface WebhookEndpointQueueDeps {
  endpoint: WebhookEndpoint;
  settings: Omit<WebhookSettings, 'shutdownDrainMs'>;
  http: Pick<WebhookHttp, 'post'>;
  /** The engine's clock: the signatures' timestamps. */
  clock: Clock;
  logger: Logger;
  metrics: WebhookMetrics;
  /** For the backoff's jitter; default `Math.random`. */
  random?: () => number;
}

/** A refused batch is logged at most this often per endpoint, with the count of the ones held back. */
const logIntervalMs = 60_000;

/**
 * The events waiting for one endpoint in this process, and the loop that
 * sends them: batches of up to `maxBatchEvents`, one POST in flight at a
 * time (so batches arrive in the order they were made, unless the
 * receiver's answers are lost), each signed anew at every attempt and
 * retried with backoff until `retryForMs` after its first attempt.
 *
 * Bounded: at most `maxQueuedEvents` events, the batch in flight included.
 * `offer` never waits: what does not fit is dropped at once and counted, so
 * a slow or dead endpoint costs the sender a comparison, not time or memory.
 */
export class WebhookEndpointQueue {
  readonly #deps: WebhookEndpointQueueDeps;
  readonly #throttle: LogThrottle;
  #items: WebhookEvent[] = [];
  #head = 0;
  /** `performance.now()` when the oldest event not yet in a batch was queued. */
  #waitingSince = 0;
  #wake: (() => void) | null = null;
  #closing = false;
  /** Aborted when the drain time is over: cuts the request in flight and any wait. */
  readonly #stop = new AbortController();
  readonly #loop: Promise<void>;
  readonly #untrack: () => void;
  #closed: Promise<void> | undefined;

  constructor(deps: WebhookEndpointQueueDeps) {
    this.#deps = deps;
    this.#throttle = new LogThrottle({ intervalMs: logIntervalMs, clock: deps.clock });
    const { appId, name } = deps.endpoint;
    this.#untrack = deps.metrics.trackQueue(appId, name, () => this.size);
    this.#loop = this.#run();
  }

  get endpoint(): WebhookEndpoint {
    return this.#deps.endpoint;
  }

  /** Events queued or in flight. */
  get size(): number {
    return this.#items.length - this.#head;
  }

  /** Queues what fits; the rest is dropped and counted. Never waits. */
  offer(events: readonly WebhookEvent[]): void {
    if (events.length === 0) return;
    if (this.#closing) {
      this.#drop('shutdown', events.length);
      return;
    }
    const room = this.#deps.settings.maxQueuedEvents - this.size;
    const taken = Math.min(room, events.length);
    if (taken < events.length) this.#drop('queue_full', events.length - taken);
    if (taken <= 0) return;
    if (this.size === 0) this.#waitingSince = performance.now();
    for (let index = 0; index < taken; index += 1) this.#items.push(events[index] as WebhookEvent);
    this.#wake?.();
  }

  /**
   * Stops taking events and keeps sending what is queued for at most
   * `drainMs`; then cuts the request in flight and drops the rest, counted
   * as `shutdown`. Idempotent.
   */
  close(drainMs: number): Promise<void> {
    if (this.#closed === undefined) {
      this.#closing = true;
      this.#wake?.();
      const timer = setTimeout(() => this.#stop.abort(), drainMs);
      this.#closed = this.#loop.then(() => {
        clearTimeout(timer);
        this.#drop('shutdown', this.size);
        this.#items = [];
        this.#head = 0;
        this.#untrack();
      });
    }
    return this.#closed;
  }

  async #run(): Promise<void> {
    const { maxBatchEvents, batchDelayMs } = this.#deps.settings;
    while (!this.#stop.signal.aborted) {
      if (this.size === 0) {
        if (this.#closing) return;
        await this.#nextEvent(Infinity);
        continue;
      }
      // A batch waits for company a little, unless it is full or the process is closing.
      const waited = performance.now() - this.#waitingSince;
      if (!this.#closing && this.size < maxBatchEvents && waited < batchDelayMs) {
        await this.#nextEvent(batchDelayMs - waited);
        continue;
      }
      const count = Math.min(this.size, maxBatchEvents);
      await this.#send(this.#items.slice(this.#head, this.#head + count));
      this.#advance(count);
    }
  }

  /** Resolves at the next offer or close, or after `ms`. */
  async #nextEvent(ms: number): Promise<void> {
    const { promise, resolve } = Promise.withResolvers<void>();
    this.#wake = resolve;
    const timer = Number.isFinite(ms) ? setTimeout(resolve, ms) : undefined;
    const stopped = () => resolve();
    this.#stop.signal.addEventListener('abort', stopped, { once: true });
    await promise;
    clearTimeout(timer);
    this.#stop.signal.removeEventListener('abort', stopped);
    this.#wake = null;
  }

  /** Sends one batch until it is accepted, its retry time is over, or the process stops waiting. */
  async #send(batch: WebhookEvent[]): Promise<void> {
    const { endpoint, settings, http, clock, metrics } = this.#deps;
    const body = webhookBody(endpoint.appId, endpoint.name, batch);
    const batchId = randomUUID();
    const firstAttempt = performance.now();
    for (let attempt = 1; ; attempt += 1) {
      const now = clock.now();
      const headers = {
        'content-type': 'application/json',
        'user-agent': 'Herald-Webhooks/1',
        [webhookSignatureHeader.toLowerCase()]: webhookSignature(endpoint.secret, Math.floor(now / 1000), body),
        'herald-batch': batchId,
        'herald-attempt': String(attempt),
      };
      const answer = await http.post(endpoint.url, headers, body, now, this.#stop.signal);
      if (this.#stop.signal.aborted) {
        this.#drop('shutdown', batch.length);
        return;
      }
      metrics.request(endpoint.appId, endpoint.name, answer.kind === 'answered' ? requestResultOf(answer.status) : answer.kind);
      if (answer.kind === 'answered' && answer.status >= 200 && answer.status < 300) {
        metrics.delivered(endpoint.appId, endpoint.name, batch.length);
        return;
      }
      const left = settings.retryForMs - (performance.now() - firstAttempt);
      if (left <= 0) {
        this.#deps.logger.warn({ app: endpoint.appId, endpoint: endpoint.name, events: batch.length, attempts: attempt, ...describe(answer) }, 'webhook batch dropped: not accepted within the retry time');
        this.#drop('retry_expired', batch.length);
        return;
      }
      const delay = Math.min(left, webhookRetryDelay(attempt, settings, answer.kind === 'answered' ? answer.retryAfterMs : undefined, this.#deps.random));
      this.#logRefusal(answer, attempt, delay);
      try {
        await sleep(delay, undefined, { signal: this.#stop.signal });
      } catch {
        this.#drop('shutdown', batch.length);
        return;
      }
    }
  }

  #advance(count: number): void {
    this.#head += count;
    // Compacted now and then, so the array does not keep what was sent.
    if (this.#head >= 1024 && this.#head * 2 >= this.#items.length) {
      this.#items = this.#items.slice(this.#head);
      this.#head = 0;
    }
  }

  #drop(reason: WebhookDropReason, count: number): void {
    if (count <= 0) return;
    const { appId, name } = this.#deps.endpoint;
    this.#deps.metrics.dropped(appId, name, reason, count);
    if (reason !== 'queue_full') return;
    const held = this.#throttle.admit('full');
    if (held !== undefined) this.#deps.logger.warn({ app: appId, endpoint: name, maxQueuedEvents: this.#deps.settings.maxQueuedEvents, heldBack: held }, 'webhook queue full: events dropped');
  }

  #logRefusal(answer: WebhookAnswer, attempt: number, delayMs: number): void {
    const held = this.#throttle.admit('refused');
    if (held === undefined) return;
    const { appId, name } = this.#deps.endpoint;
    this.#deps.logger.warn({ app: appId, endpoint: name, attempt, retryInMs: Math.round(delayMs), heldBack: held, ...describe(answer) }, 'webhook batch not accepted; retrying');
  }
}

/** An answer for a log line: the status and the start of the body, or what kept the answer from coming. */
function describe(answer: WebhookAnswer): Record<string, unknown> {
  if (answer.kind === 'answered') return { status: answer.status, answer: answer.excerpt.slice(0, 200) };
  return { failure: answer.kind, cause: answer.cause };
}
