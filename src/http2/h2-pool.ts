import { performance } from 'node:perf_hooks';
import { createSecureContext } from 'node:tls';
import { freeWithFewestStreams, gatewayEndpoint, type GatewayRequest, type GatewayTransport, type GatewayTransportOptions } from '../push/gateways/gateway-transport.ts';
import { InFlightExchanges } from '../push/gateways/in-flight-exchanges.ts';
import { connectFailure } from '../push/gateways/transport-failure.ts';
import { H2Connection, largestStreamId, type H2ConnectionEvents, type H2ConnectionSettings } from './h2-connection.ts';
import { H2Exchange, type H2ExchangeOwner } from './h2-exchange.ts';

const closedFailure = { reason: 'ClientClosed', retryable: true } as const;

/** Streams a connection is assumed to take before its server's SETTINGS say (the least any gateway allows). */
const assumedStreams = 100;

/** After a failed connect, the next waits this long, doubled for each further failure up to the cap. */
const reconnectDelayMs = { first: 100, most: 5000 };

/**
 * Herald's own persistent HTTP/2 connections to one gateway origin: up to
 * `sessions` of them, each opened only when the others are at their
 * server's stream limit with requests waiting. A request goes to the ready
 * connection with the fewest open streams; with none free it waits in order.
 * GOAWAY retires a connection at once (its unprocessed streams are sent again
 * elsewhere), PINGs find dead ones, every request has a deadline, and
 * `close()` drains.
 */
export class H2Pool implements GatewayTransport, H2ConnectionEvents, H2ExchangeOwner {
  readonly #options: GatewayTransportOptions;
  readonly #connectionSettings: H2ConnectionSettings;
  /** Every connection not yet closed. */
  readonly #connections = new Set<H2Connection>();
  /** Ready connections that take new streams. */
  #usable: H2Connection[] = [];
  #connecting = 0;
  /** Connects that failed since the last one that succeeded. */
  #connectFailures = 0;
  /** No connect starts before this (`performance.now()`), after failures. */
  #connectAfter = 0;
  #reconnect: NodeJS.Timeout | undefined;
  /** Requests waiting for a stream, oldest first from `#head`. */
  #queue: H2Exchange[] = [];
  #head = 0;
  readonly #inFlight: InFlightExchanges<H2Exchange>;
  #closed = false;
  #closing: Promise<void> | undefined;

  /** `lastStreamId` retires connections early, for tests. */
  constructor(options: GatewayTransportOptions, tuning: { lastStreamId?: number } = {}) {
    this.#options = options;
    const endpoint = gatewayEndpoint(options.origin);
    this.#connectionSettings = {
      gateway: options.gateway,
      host: endpoint.host,
      port: endpoint.port,
      servername: endpoint.servername,
      authority: endpoint.origin.host,
      secureContext: createSecureContext(options.tls),
      connectTimeoutMs: options.requestTimeoutMs,
      pingIntervalMs: options.pingIntervalMs,
      lastStreamId: tuning.lastStreamId ?? largestStreamId,
      logger: options.logger,
    };
    this.#inFlight = new InFlightExchanges(options.gateway, options.requestTimeoutMs, options.metrics);
  }

  get inFlight(): number {
    return this.#inFlight.size;
  }

  get sessions(): number {
    return this.#connections.size - this.#connecting;
  }

  exchange(request: GatewayRequest): Promise<H2Exchange> {
    const now = performance.now();
    const exchange = new H2Exchange(this, request, now, now + this.#options.requestTimeoutMs);
    if (this.#closed) {
      exchange.fail(closedFailure);
      return exchange.promise;
    }
    this.#inFlight.add(exchange);
    const connection = this.#queue.length === this.#head ? freeWithFewestStreams(this.#usable) : undefined;
    if (connection === undefined) {
      this.#queue.push(exchange);
      this.#grow();
    } else {
      exchange.startOn(connection);
    }
    return exchange.promise;
  }

  close(): Promise<void> {
    this.#closing ??= this.#shutdown();
    return this.#closing;
  }

  /** @internal H2ExchangeOwner */
  settled(exchange: H2Exchange): void {
    this.#inFlight.settled(exchange);
  }

  /** @internal H2ConnectionEvents */
  ready(connection: H2Connection): void {
    this.#connecting -= 1;
    this.#connectFailures = 0;
    this.#connectAfter = 0;
    this.#usable.push(connection);
    this.#options.metrics.sessionOpened(this.#options.gateway);
    this.#options.logger?.debug({ gateway: this.#options.gateway, origin: this.#options.origin, sessions: this.sessions }, 'gateway session opened');
    this.#drain();
  }

  /** @internal H2ConnectionEvents */
  freed(): void {
    if (this.#queue.length > this.#head) this.#drain();
  }

  /** @internal H2ConnectionEvents */
  retired(connection: H2Connection): void {
    const index = this.#usable.indexOf(connection);
    if (index === -1) return;
    this.#usable.splice(index, 1);
    if (this.#queue.length > this.#head) this.#grow();
  }

  /** @internal H2ConnectionEvents */
  closed(connection: H2Connection, error: Error | undefined): void {
    if (!this.#connections.delete(connection)) return;
    if (error === undefined) {
      this.#options.metrics.sessionClosed(this.#options.gateway);
      this.#options.logger?.debug({ gateway: this.#options.gateway, origin: this.#options.origin, sessions: this.sessions }, 'gateway session closed');
    } else {
      this.#connecting -= 1;
      this.#connectFailures += 1;
      this.#connectAfter = performance.now() + Math.min(reconnectDelayMs.most, reconnectDelayMs.first * 2 ** (this.#connectFailures - 1));
      this.#options.logger?.debug({ gateway: this.#options.gateway, origin: this.#options.origin, err: error.message }, 'gateway connection failed');
      // Nothing else can take the waiting requests: they fail as the connection did.
      if (this.#usable.length === 0 && this.#connecting === 0) this.#failQueue(error);
    }
    if (this.#queue.length > this.#head) this.#drain();
  }

  /** Starts waiting requests while connections have room; opens more when they do not. */
  #drain(): void {
    const queue = this.#queue;
    while (this.#head < queue.length) {
      const exchange = queue[this.#head] as H2Exchange;
      if (exchange.done) {
        this.#head += 1;
        continue;
      }
      const connection = freeWithFewestStreams(this.#usable);
      if (connection === undefined) break;
      this.#head += 1;
      exchange.startOn(connection);
    }
    this.#compactQueue();
    if (this.#head < this.#queue.length) this.#grow();
  }

  /**
   * Opens connections while the waiting requests outnumber what those
   * opening will take, up to `sessions`; after failed connects, not before
   * the backoff is over (a gateway that refuses connections is not hammered
   * while busy connections still serve).
   */
  #grow(): void {
    const waiting = this.#queue.length - this.#head;
    if (waiting <= this.#connecting * assumedStreams || this.#usable.length + this.#connecting >= this.#options.sessions) return;
    const wait = this.#connectAfter - performance.now();
    if (wait > 0) {
      this.#reconnect ??= setTimeout(() => {
        this.#reconnect = undefined;
        this.#drain();
      }, wait);
      return;
    }
    do {
      this.#connecting += 1;
      this.#connections.add(new H2Connection(this.#connectionSettings, this));
    } while (waiting > this.#connecting * assumedStreams && this.#usable.length + this.#connecting < this.#options.sessions);
  }

  #failQueue(error: Error): void {
    const failure = connectFailure(error);
    const waiting = this.#queue.slice(this.#head);
    this.#queue = [];
    this.#head = 0;
    for (const exchange of waiting) exchange.fail(failure);
  }

  #compactQueue(): void {
    if (this.#head === this.#queue.length) {
      this.#queue = [];
      this.#head = 0;
    } else if (this.#head > 1024 && this.#head * 2 > this.#queue.length) {
      this.#queue = this.#queue.slice(this.#head);
      this.#head = 0;
    }
  }

  async #shutdown(): Promise<void> {
    this.#closed = true;
    await this.#inFlight.drained();
    clearTimeout(this.#reconnect);
    // Nothing is in flight: a second is plenty for the GOAWAY exchange.
    await Promise.all([...this.#connections].map((connection) => connection.close(1000)));
  }
}
