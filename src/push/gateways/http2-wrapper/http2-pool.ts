import type { ClientHttp2Session, OutgoingHttpHeaders, SecureClientSessionOptions } from 'node:http2';
import { performance } from 'node:perf_hooks';
import { createSecureContext, type SecureContext } from 'node:tls';
import { parseEndpoint } from '../../../http2/endpoint.ts';
import { freeWithFewestStreams } from '../../../http2/free-with-fewest-streams.ts';
import { connectFailure } from '../../../http2/h2-failure.ts';
import { InFlightExchanges } from '../../../http2/in-flight-exchanges.ts';
import type { GatewayRequest, GatewayTransport, GatewayTransportOptions } from '../gateway-transport.ts';
import { Http2Exchange, type ExchangeOwner } from './http2-exchange.ts';
import { PoolAgent, PooledSession, type PooledSessionEvents, type PooledSessionSettings } from './pooled-session.ts';

const closedFailure = { reason: 'ClientClosed', retryable: true } as const;

/**
 * The `http2-wrapper` transport: persistent `node:http2` sessions to one
 * gateway origin, managed by http2-wrapper's
 * Agent: it opens sessions (up to `sessions`), queues requests while every
 * session is at the server's `maxConcurrentStreams`, and replaces sessions
 * that close. The pool adds what a gateway client needs on top: GOAWAY retires
 * a session at once, PINGs find dead ones, every request has a deadline, and
 * `close()` drains.
 *
 * Requests go straight to a free open session through the Agent's own
 * `session.request` (which keeps its stream counts); only when none is free
 * do they take the Agent's queueing `request()`.
 */
export class Http2Pool implements GatewayTransport, ExchangeOwner, PooledSessionEvents {
  readonly #options: GatewayTransportOptions;
  readonly #origin: URL;
  readonly #sessionOptions: SecureClientSessionOptions;
  readonly #agent: PoolAgent;
  readonly #sessionSettings: PooledSessionSettings;
  /** Sessions that may take new streams. */
  readonly #usable: PooledSession[] = [];
  /** Every session the pool saw open, until it closes. */
  readonly #open = new Set<PooledSession>();
  readonly #inFlight: InFlightExchanges<Http2Exchange>;
  readonly #untrack: () => void;
  #closed = false;
  #closing: Promise<void> | undefined;

  constructor(options: GatewayTransportOptions) {
    this.#options = options;
    const endpoint = parseEndpoint(options.origin);
    this.#origin = endpoint.origin;
    const secureContext: SecureContext = createSecureContext(options.tls);
    // No SNI for an IP address ('' turns Node's default off); the certificate is still checked against the IP.
    this.#sessionOptions = endpoint.servername === undefined ? { secureContext, servername: '' } : { secureContext };
    this.#agent = new PoolAgent({ maxSessions: options.sessions, maxEmptySessions: options.sessions });
    this.#sessionSettings = {
      gateway: options.gateway,
      origin: this.#origin.origin,
      pingIntervalMs: options.pingIntervalMs,
      closeGraceMs: options.requestTimeoutMs + 5000,
      logger: options.logger,
    };
    this.#agent.on('session', (session: ClientHttp2Session) => this.#adopt(session));
    const { gateway, metrics } = options;
    this.#inFlight = new InFlightExchanges(options.requestTimeoutMs, { answered: (seconds) => metrics.observeLatency(gateway, seconds) });
    this.#untrack = metrics.trackStreams(gateway, () => this.#inFlight.size);
  }

  /** Requests waiting for or holding a stream. */
  get inFlight(): number {
    return this.#inFlight.size;
  }

  /** Open sessions, GOAWAY'd ones that still finish their streams included. */
  get sessions(): number {
    return this.#open.size;
  }

  /** Sends one request; the promise always resolves, with an answer or a `failure`. */
  exchange(request: GatewayRequest): Promise<Http2Exchange> {
    const now = performance.now();
    const exchange = new Http2Exchange(this, request.body, now, now + this.#options.requestTimeoutMs);
    if (this.#closed) {
      exchange.fail(closedFailure);
      return exchange.promise;
    }
    this.#inFlight.add(exchange);
    // Request headers as a flat list of names and values, pseudo-headers
    // first; Node fills in `:scheme` and `:authority`. The list form skips the
    // copying and re-checking Node does for a headers object on every request.
    const headers = [':method', 'POST', ':path', request.path, ...request.headers];
    const pooled = freeWithFewestStreams(this.#usable);
    if (pooled === undefined) {
      // The Agent hands the headers to session.request unchanged; its types know only the object form.
      this.#agent.request(this.#origin, this.#sessionOptions, headers as unknown as OutgoingHttpHeaders).then(
        (stream) => exchange.attach(stream),
        (error: unknown) => exchange.fail(connectFailure(error)),
      );
    } else {
      try {
        exchange.attach(pooled.session.request(headers));
      } catch (error) {
        exchange.fail(connectFailure(error));
      }
    }
    return exchange.promise;
  }

  /** Resolves once a session is open: the Agent's, opened when there is none; also when the connect fails or the pool is closed. */
  async warm(): Promise<void> {
    if (this.#closed || this.#usable.length > 0) return;
    try {
      await this.#agent.getSession(this.#origin, this.#sessionOptions);
    } catch {
      // The requests that follow meet the failure.
    }
  }

  /** @internal called by each exchange once. */
  settled(exchange: Http2Exchange): void {
    this.#inFlight.settled(exchange);
  }

  /**
   * Stops taking requests (they answer `ClientClosed`), waits for those in
   * flight (each ends by its deadline at the latest), then closes every session
   * with a GOAWAY. Idempotent.
   */
  close(): Promise<void> {
    this.#closing ??= this.#shutdown();
    return this.#closing;
  }

  async #shutdown(): Promise<void> {
    this.#closed = true;
    await this.#inFlight.drained();
    this.#untrack();
    // Nothing is in flight: a second is plenty for the GOAWAY exchange.
    await Promise.all([...this.#open].map((session) => session.end(1000)));
    this.#agent.destroy();
  }

  #adopt(session: ClientHttp2Session): void {
    const pooled = new PooledSession(session, this.#sessionSettings, this);
    this.#open.add(pooled);
    this.#usable.push(pooled);
    this.#options.metrics.sessionOpened(this.#options.gateway);
    this.#options.logger?.debug({ gateway: this.#options.gateway, origin: this.#origin.origin, sessions: this.#open.size }, 'gateway session opened');
  }

  /** @internal PooledSessionEvents */
  retired(pooled: PooledSession): void {
    const index = this.#usable.indexOf(pooled);
    if (index !== -1) this.#usable.splice(index, 1);
  }

  /** @internal PooledSessionEvents */
  closed(pooled: PooledSession): void {
    if (!this.#open.delete(pooled)) return;
    this.#options.metrics.sessionClosed(this.#options.gateway);
    this.#options.logger?.debug({ gateway: this.#options.gateway, origin: this.#origin.origin, sessions: this.#open.size }, 'gateway session closed');
  }

}
