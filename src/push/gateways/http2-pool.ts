import { isIP } from 'node:net';
import type { ClientHttp2Session, OutgoingHttpHeaders, SecureClientSessionOptions } from 'node:http2';
import { performance } from 'node:perf_hooks';
import { createSecureContext, type SecureContext } from 'node:tls';
import type { Logger } from '../../core/logger.ts';
import { connectFailure } from './transport-failure.ts';
import type { GatewayName } from './delivery.ts';
import type { GatewayMetrics } from './gateway-metrics.ts';
import { Http2Exchange, type ExchangeOwner } from './http2-exchange.ts';
import { PoolAgent, PooledSession, type PooledSessionEvents, type PooledSessionSettings } from './pooled-session.ts';

/** TLS material of a pool. Verification of the gateway's certificate is always on. */
export interface Http2PoolTls {
  /** PEM CAs to trust instead of the system roots (tests, private proxies). */
  ca?: string | Buffer;
  /** Client certificate and key (PEM), or `pfx` with `passphrase`. */
  cert?: string | Buffer;
  key?: string | Buffer;
  pfx?: Buffer;
  passphrase?: string;
}

export interface Http2PoolOptions {
  gateway: GatewayName;
  /** `https://host[:port]`. */
  origin: string;
  tls: Http2PoolTls;
  /** Most sessions open at once; another opens only when the open ones are at the server's stream limit. */
  sessions: number;
  requestTimeoutMs: number;
  pingIntervalMs: number;
  metrics: GatewayMetrics;
  logger?: Logger;
}

/**
 * Request headers as a flat list of names and values (`[':method', 'POST',
 * ':path', …]`), pseudo-headers first; Node fills in `:scheme` and
 * `:authority`. The list form skips the copying and re-checking Node does for
 * a headers object on every request.
 */
export type RawRequestHeaders = readonly string[];

const closedFailure = { reason: 'ClientClosed', retryable: true } as const;
const timeoutFailure = { reason: 'Timeout', retryable: true } as const;

/**
 * Persistent HTTP/2 sessions to one gateway origin, managed by http2-wrapper's
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
export class Http2Pool implements ExchangeOwner, PooledSessionEvents {
  readonly #options: Http2PoolOptions;
  readonly #origin: URL;
  readonly #sessionOptions: SecureClientSessionOptions;
  readonly #agent: PoolAgent;
  readonly #sessionSettings: PooledSessionSettings;
  /** Sessions that may take new streams. */
  readonly #usable: PooledSession[] = [];
  /** Every session the pool saw open, until it closes. */
  readonly #open = new Set<PooledSession>();
  /** In start order, which is deadline order: the sweep stops at the first that is not due. */
  readonly #inFlight = new Set<Http2Exchange>();
  readonly #sweeper: NodeJS.Timeout;
  readonly #untrack: () => void;
  #closed = false;
  #closing: Promise<void> | undefined;
  #drained: (() => void) | undefined;

  constructor(options: Http2PoolOptions) {
    this.#options = options;
    this.#origin = parseOrigin(options.origin);
    const secureContext: SecureContext = createSecureContext(options.tls);
    // No SNI for an IP address (RFC 6066); the certificate is still checked against the IP.
    this.#sessionOptions = isIP(this.#origin.hostname.replace(/^\[|\]$/g, '')) ? { secureContext, servername: '' } : { secureContext };
    this.#agent = new PoolAgent({ maxSessions: options.sessions, maxEmptySessions: options.sessions });
    this.#sessionSettings = {
      gateway: options.gateway,
      origin: this.#origin.origin,
      pingIntervalMs: options.pingIntervalMs,
      closeGraceMs: options.requestTimeoutMs + 5000,
      logger: options.logger,
    };
    this.#agent.on('session', (session: ClientHttp2Session) => this.#adopt(session));
    const sweepEvery = Math.max(5, Math.min(1000, Math.floor(options.requestTimeoutMs / 8)));
    this.#sweeper = setInterval(() => this.#sweep(), sweepEvery).unref();
    this.#untrack = options.metrics.trackStreams(options.gateway, () => this.#inFlight.size);
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
  exchange(headers: RawRequestHeaders, body: Buffer): Promise<Http2Exchange> {
    const now = performance.now();
    const exchange = new Http2Exchange(this, body, now, now + this.#options.requestTimeoutMs);
    if (this.#closed) {
      exchange.fail(closedFailure);
      return exchange.promise;
    }
    this.#inFlight.add(exchange);
    const pooled = this.#freeSession();
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

  /** @internal called by each exchange once. */
  settled(exchange: Http2Exchange): void {
    if (!this.#inFlight.delete(exchange)) return;
    if (exchange.status !== 0) this.#options.metrics.observeLatency(this.#options.gateway, (performance.now() - exchange.startedAt) / 1000);
    if (this.#inFlight.size === 0) this.#drained?.();
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
    if (this.#inFlight.size > 0) await new Promise<void>((resolve) => (this.#drained = resolve));
    clearInterval(this.#sweeper);
    this.#untrack();
    // Nothing is in flight: a second is plenty for the GOAWAY exchange.
    await Promise.all([...this.#open].map((session) => session.end(1000)));
    this.#agent.destroy();
  }

  /** The free usable session with the fewest streams, spreading load over the sessions the Agent opened. */
  #freeSession(): PooledSession | undefined {
    let best: PooledSession | undefined;
    let bestStreams = Infinity;
    for (const pooled of this.#usable) {
      const streams = pooled.streams;
      if (streams < bestStreams && pooled.free) {
        best = pooled;
        bestStreams = streams;
      }
    }
    return best;
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

  #sweep(): void {
    if (this.#inFlight.size === 0) return;
    const now = performance.now();
    for (const exchange of this.#inFlight) {
      if (exchange.deadline > now) break;
      exchange.fail(timeoutFailure);
    }
  }
}

function parseOrigin(origin: string): URL {
  const url = new URL(origin);
  if (url.protocol !== 'https:' || (url.pathname !== '/' && url.pathname !== '') || url.search !== '') {
    throw new RangeError(`gateway endpoint must be https://host[:port], got ${origin}`);
  }
  return new URL(url.origin);
}
