import type { Socket } from 'node:net';
import type { SecureContextOptions } from 'node:tls';
import type { Logger } from '../core/logger.ts';
import type { Endpoint } from './endpoint.ts';
import type { H2ConnectionLimits } from './h2-connection-options.ts';
import type { AnswerObserver } from './in-flight-exchanges.ts';

/** What a pool tells whoever counts its connections and answers. */
export interface H2PoolObserver extends AnswerObserver {
  /** A connection finished its handshake and got the server's settings. */
  connectionOpened(): void;
  /** A connection counted by `connectionOpened` closed. */
  connectionClosed(): void;
}

export interface H2PoolOptions {
  /** `https://host[:port]`. */
  origin: string;
  /** The CA to trust and any client certificate; the server's certificate is always verified. */
  tls: SecureContextOptions;
  /** Most connections open at once; another opens only when the open ones are at the server's stream limit. */
  connections: number;
  /** Every request settles by this, answered or not. */
  requestTimeoutMs: number;
  /** A PING goes out every interval; one unanswered for a whole interval drops the connection. */
  pingIntervalMs: number;
  logger?: Logger;
  observer?: H2PoolObserver;
  /** The last stream id a connection uses before it retires; 2^31-1, lower in tests. */
  lastStreamId?: number;
  /** Bounds on what a server may make a connection do; the defaults unless a test moves one. */
  limits?: Partial<H2ConnectionLimits>;
  /** Makes a connection's socket; TLS to the endpoint with ALPN `h2` unless a test speaks cleartext HTTP/2. */
  dial?: (endpoint: Endpoint) => Socket;
}
