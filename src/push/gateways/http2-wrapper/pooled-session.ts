import http2Wrapper from 'http2-wrapper';
import type { ClientHttp2Session, SecureClientSessionOptions } from 'node:http2';
import { performance } from 'node:perf_hooks';
import type { TLSSocket } from 'node:tls';
import type { Logger } from '../../../core/logger.ts';

/** Symbols http2-wrapper's Agent keeps its accounting under (exported as statics, missing from its types). */
const agentSymbols = http2Wrapper.Agent as unknown as { kCurrentStreamCount: symbol; kGracefullyClosing: symbol };
const kStreams = agentSymbols.kCurrentStreamCount;
const kClosing = agentSymbols.kGracefullyClosing;
const kRawSocket = Symbol('rawSocket');

type AgentSession = ClientHttp2Session & { [key: symbol]: unknown };
type TaggedSocket = TLSSocket & { [kRawSocket]?: TLSSocket };

/**
 * http2-wrapper's Agent for one gateway client. Every session has the same
 * origin and TLS options, so the Agent's per-request key (normally built from
 * ~40 option values, CA and certificate text included) is a constant; and each
 * TLS socket is tagged so that a session that never finishes closing can have
 * its socket destroyed (Node's session proxy refuses that).
 */
export class PoolAgent extends http2Wrapper.Agent {
  override normalizeOptions(): string {
    return '';
  }

  /**
   * Never closes idle sessions. The Agent closes one whenever a stream ends
   * while it holds `maxSessions`, to make room for other origins; a pool has
   * only its own origin, so that would only churn connections (with one
   * session, after every quiet moment).
   */
  override closeEmptySessions(): number {
    return 0;
  }

  override async createConnection(origin: URL, options: SecureClientSessionOptions): Promise<TLSSocket> {
    const socket: TaggedSocket = await super.createConnection(origin, options);
    socket[kRawSocket] = socket;
    return socket;
  }
}

/** The code of the error a session dropped by the pool fails its streams with: they were lost with it, not reset by the server. */
export const sessionDroppedCode = 'HERALD_SESSION_DROPPED';

export interface PooledSessionSettings {
  gateway: string;
  origin: string;
  pingIntervalMs: number;
  /** How long a GOAWAY'd session may take to finish its streams before its connection is dropped. */
  closeGraceMs: number;
  logger: Logger | undefined;
}

export interface PooledSessionEvents {
  /** The session will take no new streams (GOAWAY received). */
  retired(session: PooledSession): void;
  closed(session: PooledSession): void;
}

/**
 * One HTTP/2 session of a pool: keep-alive PINGs, GOAWAY handling, and a
 * close that cannot hang. Node can leave a session destroyed but never
 * closed when our GOAWAY crosses the server's and the server keeps its end of
 * the connection open; then the socket is destroyed after a grace period.
 */
export class PooledSession {
  readonly session: AgentSession;
  /** Resolves once the session has closed (or was given up on). */
  readonly closed: Promise<void>;
  readonly #settings: PooledSessionSettings;
  readonly #events: PooledSessionEvents;
  readonly #raw: TLSSocket | undefined;
  readonly #ping: NodeJS.Timeout;
  #pingOutstanding = false;
  #retired = false;
  #goAwaySeen = false;
  #isClosed = false;
  #markClosed!: () => void;
  #watch: NodeJS.Timeout | undefined;

  constructor(session: ClientHttp2Session, settings: PooledSessionSettings, events: PooledSessionEvents) {
    this.session = session as AgentSession;
    this.#settings = settings;
    this.#events = events;
    this.#raw = (session.socket as TaggedSocket)[kRawSocket];
    this.closed = new Promise((resolve) => (this.#markClosed = resolve));
    this.#ping = setInterval(() => this.#keepAlive(), settings.pingIntervalMs).unref();
    session.on('goaway', (code: number, lastStreamId: number) => {
      // Once a session: a gateway that sends GOAWAY after GOAWAY gets one line, not one a frame.
      if (!this.#goAwaySeen) settings.logger?.info({ gateway: settings.gateway, origin: settings.origin, code, lastStreamId }, 'gateway sent GOAWAY; replacing the session');
      // Streams at or below lastStreamId still get their answers; the rest were refused and are retried.
      this.#goAwaySeen = true;
      void this.end(settings.closeGraceMs);
    });
    session.on('error', (error: Error) => settings.logger?.debug({ gateway: settings.gateway, err: error.message }, 'gateway session error'));
    session.once('close', () => this.#finish());
  }

  /** Streams open on the session, as the Agent counts them. */
  get streams(): number {
    return this.session[kStreams] as number;
  }

  /** Whether a new stream may go on this session now. */
  get free(): boolean {
    const session = this.session;
    return !this.#retired && (session[kStreams] as number) < (session.remoteSettings.maxConcurrentStreams ?? 100) && !session.destroyed && !session.closed;
  }

  /**
   * Takes no new streams (neither from the pool nor from the Agent) and closes
   * once those open have ended. The connection is dropped if the session has
   * not closed a second after its last stream, or after `graceMs` in all.
   */
  end(graceMs: number): Promise<void> {
    this.#retire();
    const session = this.session;
    if (!session.closed && !session.destroyed) session.close();
    if (!this.#isClosed && this.#watch === undefined) {
      const giveUpAt = performance.now() + graceMs;
      let idleChecks = 0;
      this.#watch = setInterval(() => {
        idleChecks = this.streams === 0 ? idleChecks + 1 : 0;
        if (idleChecks >= 2 || performance.now() >= giveUpAt) this.#drop();
      }, 500).unref();
    }
    return this.closed;
  }

  #retire(): void {
    if (this.#retired) return;
    this.#retired = true;
    this.session[kClosing] = true;
    this.#events.retired(this);
  }

  #keepAlive(): void {
    const session = this.session;
    if (session.destroyed || session.closed) return;
    // A whole interval without the previous PING's ack: the connection is
    // dead (half-open sockets never error); dropping it fails its streams as
    // ConnectionLost so they are retried elsewhere.
    if (this.#pingOutstanding) {
      this.#settings.logger?.warn({ gateway: this.#settings.gateway, origin: this.#settings.origin }, 'gateway session did not answer a ping; dropping it');
      this.#drop(Object.assign(new Error(`the server did not answer a PING within ${this.#settings.pingIntervalMs} ms`), { code: sessionDroppedCode }));
      return;
    }
    this.#pingOutstanding = session.ping(() => (this.#pingOutstanding = false));
  }

  /** Destroys the session; its open streams fail with `error` when one is given. */
  #drop(error?: Error): void {
    clearInterval(this.#watch);
    this.#retire();
    this.session.destroy(error);
    this.#raw?.destroy();
    // Should even the socket's close not reach the session, stop waiting for it.
    setTimeout(() => this.#finish(), 1000).unref();
  }

  #finish(): void {
    if (this.#isClosed) return;
    this.#isClosed = true;
    clearInterval(this.#ping);
    clearInterval(this.#watch);
    this.#retire();
    this.#events.closed(this);
    this.#markClosed();
  }
}
