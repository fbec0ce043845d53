import http2Wrapper from 'http2-wrapper';
import { isIP } from 'node:net';
import type { ClientHttp2Session, OutgoingHttpHeaders, SecureClientSessionOptions } from 'node:http2';
import { performance } from 'node:perf_hooks';
import { createSecureContext, type SecureContext } from 'node:tls';
import type { Logger } from '../../core/logger.ts';
import { connectFailure } from './transport-failure.ts';
import type { GatewayName } from './delivery.ts';
import type { GatewayMetrics } from './gateway-metrics.ts';
import { Http2Exchange, type ExchangeOwner } from './http2-exchange.ts';

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

/** Symbols http2-wrapper's Agent keeps its accounting under (exported as statics, missing from its types). */
const agentSymbols = http2Wrapper.Agent as unknown as { kCurrentStreamCount: symbol; kGracefullyClosing: symbol };
const kStreams = agentSymbols.kCurrentStreamCount;
const kClosing = agentSymbols.kGracefullyClosing;

type AgentSession = ClientHttp2Session & { [key: symbol]: unknown };

/**
 * One pool per gateway client: every session has the same origin and TLS
 * options, so the Agent's per-request key (normally built from ~40 option
 * values, CA and certificate text included) is a constant.
 */
class PoolAgent extends http2Wrapper.Agent {
  override normalizeOptions(): string {
    return '';
  }
}

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
export class Http2Pool implements ExchangeOwner {
  readonly #options: Http2PoolOptions;
  readonly #origin: URL;
  readonly #sessionOptions: SecureClientSessionOptions;
  readonly #agent: PoolAgent;
  /** Sessions that may take new streams. */
  readonly #usable: AgentSession[] = [];
  /** Every session the pool saw open, until it closes. */
  readonly #open = new Set<AgentSession>();
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
    this.#agent.on('session', (session: AgentSession) => this.#adopt(session));
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
  exchange(headers: OutgoingHttpHeaders, body: Buffer): Promise<Http2Exchange> {
    const now = performance.now();
    const exchange = new Http2Exchange(this, body, now, now + this.#options.requestTimeoutMs);
    if (this.#closed) {
      exchange.fail(closedFailure);
      return exchange.promise;
    }
    this.#inFlight.add(exchange);
    const session = this.#freeSession();
    if (session === undefined) {
      this.#agent.request(this.#origin, this.#sessionOptions, headers).then(
        (stream) => exchange.attach(stream),
        (error: unknown) => exchange.fail(connectFailure(error)),
      );
    } else {
      try {
        exchange.attach(session.request(headers));
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
    await Promise.all([...this.#open].map((session) => closeSession(session)));
    this.#agent.destroy();
  }

  /** The free usable session with the fewest streams, spreading load over the sessions the Agent opened. */
  #freeSession(): AgentSession | undefined {
    let best: AgentSession | undefined;
    let bestStreams = Infinity;
    for (const session of this.#usable) {
      const streams = session[kStreams] as number;
      if (streams < bestStreams && streams < (session.remoteSettings.maxConcurrentStreams ?? 100) && !session.destroyed && !session.closed) {
        best = session;
        bestStreams = streams;
      }
    }
    return best;
  }

  #adopt(session: AgentSession): void {
    const { gateway, metrics, logger, pingIntervalMs } = this.#options;
    this.#open.add(session);
    this.#usable.push(session);
    metrics.sessionOpened(gateway);
    logger?.debug({ gateway, origin: this.#origin.origin, sessions: this.#open.size }, 'gateway session opened');

    let pingOutstanding = false;
    const ping = setInterval(() => {
      if (session.destroyed || session.closed) return;
      // A whole interval without the previous PING's ack: the connection is
      // dead (half-open sockets never error); destroying it fails its streams
      // as ConnectionLost so they are retried elsewhere.
      if (pingOutstanding) {
        logger?.warn({ gateway, origin: this.#origin.origin }, 'gateway session did not answer a ping; dropping it');
        session.destroy();
        return;
      }
      pingOutstanding = session.ping(() => (pingOutstanding = false));
    }, pingIntervalMs).unref();

    session.on('goaway', (code: number, lastStreamId: number) => {
      logger?.info({ gateway, origin: this.#origin.origin, code, lastStreamId }, 'gateway sent GOAWAY; replacing the session');
      this.#retire(session);
      // Streams at or below lastStreamId still get their answers; close() ends the session after them.
      if (!session.closed && !session.destroyed) session.close();
    });
    session.on('error', (error: Error) => logger?.debug({ gateway, err: error.message }, 'gateway session error'));
    session.once('close', () => {
      clearInterval(ping);
      this.#retire(session);
      this.#open.delete(session);
      metrics.sessionClosed(gateway);
      logger?.debug({ gateway, origin: this.#origin.origin, sessions: this.#open.size }, 'gateway session closed');
    });
  }

  /** Takes a session out of use: neither the pool nor the Agent gives it new streams. */
  #retire(session: AgentSession): void {
    session[kClosing] = true;
    const index = this.#usable.indexOf(session);
    if (index !== -1) this.#usable.splice(index, 1);
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

function closeSession(session: ClientHttp2Session): Promise<void> {
  if (session.destroyed) return Promise.resolve();
  return new Promise((resolve) => {
    session.once('close', () => resolve());
    if (!session.closed) session.close();
  });
}
