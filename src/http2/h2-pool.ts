import type { Socket } from 'node:net';
import { performance } from 'node:perf_hooks';
import { connect, createSecureContext } from 'node:tls';
import type { Logger } from '../core/logger.ts';
import { parseEndpoint } from './endpoint.ts';
import { freeWithFewestStreams } from './free-with-fewest-streams.ts';
import type { H2ConnectionEvents, H2ConnectionSettings } from './h2-connection-options.ts';
import { H2Connection } from './h2-connection.ts';
import { H2Exchange, type H2ExchangeOwner } from './h2-exchange.ts';
import { connectFailure, failureWithCause, h2Failures, type H2Failure } from './h2-failure.ts';
import type { H2PoolObserver, H2PoolOptions } from './h2-pool-options.ts';
import type { H2Request } from './h2-request.ts';
import { InFlightExchanges } from './in-flight-exchanges.ts';
import { largestStreamId } from './our-settings.ts';

/** Streams a connection is assumed to take before its server's SETTINGS say (the least any gateway allows). */
const assumedStreams = 100;

/** After a failed connect, the next waits this long, doubled for each further failure up to the cap. */
const reconnectDelayMs = { first: 100, most: 5000 };

const unobserved: H2PoolObserver = { connectionOpened: () => {}, connectionClosed: () => {}, answered: () => {} };

/**
 * Persistent HTTP/2 connections to one origin: up to `connections` of them,
 * each opened only when the others are at their server's stream limit with
 * requests waiting. A request goes to the ready connection with the fewest
 * open streams; with none free it waits in order. GOAWAY retires a
 * connection at once (its unprocessed streams fail as `GoAway`, to be sent
 * again), PINGs find dead ones, every request settles by its deadline, and
 * `close()` drains.
 */
export class H2Pool implements H2ConnectionEvents, H2ExchangeOwner {
  readonly #options: H2PoolOptions;
  readonly #connectionSettings: H2ConnectionSettings;
  readonly #dial: () => Socket;
  readonly #observer: H2PoolObserver;
  readonly #logger: Logger | undefined;
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
  /** While connects fail: the failure of a request that reached its deadline waiting for one, as the last connect failed. */
  #unconnected: H2Failure | undefined;
  /** Requests waiting for a stream, oldest first from `#head`. */
  #queue: H2Exchange[] = [];
  #head = 0;
  readonly #inFlight: InFlightExchanges<H2Exchange>;
  /** Callers of `warm()` waiting for a connection to be ready or a connect to fail. */
  #warming: (() => void)[] = [];
  #closed = false;
  #closing: Promise<void> | undefined;

  constructor(options: H2PoolOptions) {
    this.#options = options;
    const endpoint = parseEndpoint(options.origin);
    this.#logger = options.logger?.child({ origin: endpoint.origin.origin });
    this.#connectionSettings = {
      peer: `${endpoint.host}:${endpoint.port}`,
      authority: endpoint.authority,
      connectTimeoutMs: options.requestTimeoutMs,
      pingIntervalMs: options.pingIntervalMs,
      lastStreamId: options.lastStreamId ?? largestStreamId,
      limits: options.limits,
      logger: this.#logger,
    };
    const dial = options.dial;
    if (dial === undefined) {
      const secureContext = createSecureContext(options.tls);
      this.#dial = () => connect({ host: endpoint.host, port: endpoint.port, servername: endpoint.servername, secureContext, ALPNProtocols: ['h2'] });
    } else {
      this.#dial = () => dial(endpoint);
    }
    this.#observer = options.observer ?? unobserved;
    const timeout = failureWithCause(h2Failures.timeout, `no answer within ${options.requestTimeoutMs} ms`);
    // A request that waited in vain for a connection while connects fail ends as the last connect did, and says so.
    this.#inFlight = new InFlightExchanges(options.requestTimeoutMs, this.#observer, (exchange) => (exchange.started ? timeout : (this.#unconnected ?? timeout)));
  }

  /** Requests waiting for or holding a stream. */
  get inFlight(): number {
    return this.#inFlight.size;
  }

  /** Open connections, retiring ones that still finish their streams included. */
  get connections(): number {
    return this.#connections.size - this.#connecting;
  }

  /** Sends one request; the promise always resolves, with an answer or a `failure`. */
  exchange(request: H2Request): Promise<H2Exchange> {
    const now = performance.now();
    const exchange = new H2Exchange(this, request, now, now + this.#options.requestTimeoutMs);
    if (this.#closed) {
      exchange.fail(h2Failures.clientClosed);
      return exchange.promise;
    }
    this.#inFlight.add(exchange);
    const connection = this.#queue.length === this.#head ? freeWithFewestStreams(this.#usable) : undefined;
    if (connection === undefined) {
      this.#queue.push(exchange);
      // Behind requests that settled while they waited, a free connection may take this one now.
      this.#drain();
    } else {
      exchange.startOn(connection);
    }
    return exchange.promise;
  }

  /**
   * Resolves once a connection is ready for requests, opening one when none
   * is open or opening; also as soon as a connect fails, while connects are
   * backing off, or when the pool closes. Never rejects: the requests that
   * follow meet the failure. A caller that paces its requests waits here,
   * rather than queueing requests behind a connect that then go out together.
   */
  warm(): Promise<void> {
    if (this.#closed || this.#usable.length > 0) return Promise.resolve();
    if (this.#connecting === 0) {
      if (performance.now() < this.#connectAfter) return Promise.resolve();
      this.#openConnection();
    }
    const { promise, resolve } = Promise.withResolvers<void>();
    this.#warming.push(resolve);
    return promise;
  }

  /** Stops taking requests (they answer `ClientClosed`), waits for those in flight, then closes every connection. Idempotent. */
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
    this.#unconnected = undefined;
    this.#usable.push(connection);
    this.#observer.connectionOpened();
    this.#warmed();
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
    if (this.#queue.length > this.#head) this.#drain();
  }

  /** @internal H2ConnectionEvents */
  closed(connection: H2Connection, error: Error | undefined): void {
    if (!this.#connections.delete(connection)) return;
    if (error === undefined) {
      this.#observer.connectionClosed();
    } else {
      this.#connecting -= 1;
      this.#connectFailures += 1;
      this.#connectAfter = performance.now() + Math.min(reconnectDelayMs.most, reconnectDelayMs.first * 2 ** (this.#connectFailures - 1));
      this.#logger?.debug({ err: error.message }, 'HTTP/2 connect failed');
      const failed = connectFailure(error);
      this.#unconnected = failureWithCause(failed, `no connection within ${this.#options.requestTimeoutMs} ms; the last connect failed: ${failed.cause ?? ''}`);
      // Nothing else can take the waiting requests: they fail as the connection did.
      if (this.#usable.length === 0 && this.#connecting === 0) this.#failQueue(error);
      this.#warmed();
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
   * opening will take, up to `connections`; after failed connects, not
   * before the backoff is over (a server that refuses connections is not
   * hammered while busy connections still serve).
   */
  #grow(): void {
    this.#skipSettled();
    const waiting = this.#queue.length - this.#head;
    // A closing pool opens none once nothing is in flight: a request that timed out waiting is no reason to.
    if (waiting === 0 || (this.#closed && this.#inFlight.size === 0)) return;
    const most = this.#options.connections;
    if (waiting <= this.#connecting * assumedStreams || this.#usable.length + this.#connecting >= most) return;
    const wait = this.#connectAfter - performance.now();
    if (wait > 0) {
      this.#reconnect ??= setTimeout(() => {
        this.#reconnect = undefined;
        this.#drain();
      }, wait);
      return;
    }
    do this.#openConnection();
    while (waiting > this.#connecting * assumedStreams && this.#usable.length + this.#connecting < most);
  }

  /** Starts one connection; it reports to the pool when it is ready or its connect fails. */
  #openConnection(): void {
    this.#connecting += 1;
    this.#connections.add(new H2Connection(this.#connectionSettings, this, this.#dial()));
  }

  /** Passes the waiting requests that settled (timed out) at the head of the queue. */
  #skipSettled(): void {
    while (this.#head < this.#queue.length && (this.#queue[this.#head] as H2Exchange).done) this.#head += 1;
    this.#compactQueue();
  }

  /** Lets every `warm()` caller go on. */
  #warmed(): void {
    const warming = this.#warming;
    if (warming.length === 0) return;
    this.#warming = [];
    for (const resolve of warming) resolve();
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
    this.#warmed();
    await this.#inFlight.drained();
    clearTimeout(this.#reconnect);
    // Nothing is in flight: a second is plenty for the GOAWAY exchange.
    await Promise.all([...this.#connections].map((connection) => connection.close(1000)));
  }
}
