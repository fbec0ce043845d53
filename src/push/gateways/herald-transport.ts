import { H2Pool } from '../../http2/h2-pool.ts';
import type { GatewayAnswer, GatewayRequest, GatewayTransport, GatewayTransportOptions } from './gateway-transport.ts';

/**
 * The `herald` transport: Herald's own HTTP/2 client (`src/http2/`) as a
 * gateway transport. The pool's connections are the gateway's sessions, and
 * its events the gateway's metrics; its requests, answers and failures are
 * the transport contract's as they are.
 */
export class HeraldTransport implements GatewayTransport {
  readonly #pool: H2Pool;
  readonly #untrack: () => void;
  #closing: Promise<void> | undefined;

  /** `lastStreamId` retires connections early, for tests. */
  constructor(options: GatewayTransportOptions, tuning: { lastStreamId?: number } = {}) {
    const { gateway, metrics, logger, origin } = options;
    this.#pool = new H2Pool({
      origin: options.origin,
      tls: options.tls,
      connections: options.sessions,
      requestTimeoutMs: options.requestTimeoutMs,
      pingIntervalMs: options.pingIntervalMs,
      logger: logger?.child({ gateway }),
      observer: {
        connectionOpened: () => {
          metrics.sessionOpened(gateway);
          logger?.debug({ gateway, origin, sessions: this.sessions }, 'gateway session opened');
        },
        connectionClosed: () => {
          metrics.sessionClosed(gateway);
          logger?.debug({ gateway, origin, sessions: this.sessions }, 'gateway session closed');
        },
        answered: (seconds) => metrics.observeLatency(gateway, seconds),
      },
      lastStreamId: tuning.lastStreamId,
    });
    this.#untrack = metrics.trackStreams(gateway, () => this.#pool.inFlight);
  }

  get inFlight(): number {
    return this.#pool.inFlight;
  }

  get sessions(): number {
    return this.#pool.connections;
  }

  warm(): Promise<void> {
    return this.#pool.warm();
  }

  exchange(request: GatewayRequest): Promise<GatewayAnswer> {
    return this.#pool.exchange(request);
  }

  close(): Promise<void> {
    this.#closing ??= this.#pool.close().then(this.#untrack);
    return this.#closing;
  }
}
