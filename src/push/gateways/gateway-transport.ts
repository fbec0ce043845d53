import type { Logger } from '../../core/logger.ts';
import type { GatewayName } from './delivery.ts';
import type { GatewayMetrics } from './gateway-metrics.ts';
import type { H2Request } from './h2/h2-request.ts';
import type { TransportFailure } from './transport-failure.ts';

export type { H2Request as GatewayRequest } from './h2/h2-request.ts';

/**
 * How a gateway client reaches its gateway: `herald`, Herald's own HTTP/2
 * connections (`h2/`), or `http2-wrapper`, Node's `node:http2` sessions
 * managed by http2-wrapper's Agent. Both keep persistent pooled sessions and
 * answer alike; Herald's own costs a fifth of the CPU per request, and the
 * other stays as a fallback an operator can switch to.
 */
export type GatewayTransportKind = 'herald' | 'http2-wrapper';

export const gatewayTransportKinds: readonly GatewayTransportKind[] = ['herald', 'http2-wrapper'];

/** TLS material of a transport. Verification of the gateway's certificate is always on. */
export interface GatewayTls {
  /** PEM CAs to trust instead of the system roots (tests, private proxies). */
  ca?: string | Buffer;
  /** Client certificate and key (PEM), or `pfx` with `passphrase`. */
  cert?: string | Buffer;
  key?: string | Buffer;
  pfx?: Buffer;
  passphrase?: string;
}

export interface GatewayTransportOptions {
  gateway: GatewayName;
  /** `https://host[:port]`. */
  origin: string;
  tls: GatewayTls;
  /** Most sessions open at once; another opens only when the open ones are at the server's stream limit. */
  sessions: number;
  requestTimeoutMs: number;
  pingIntervalMs: number;
  metrics: GatewayMetrics;
  logger?: Logger;
}

/** The gateway's answer to one request, or why none came. */
export interface GatewayAnswer {
  /** HTTP status; 0 when no answer arrived (`failure` says why). */
  readonly status: number;
  /** The body of an answer other than 200 (a 200's is not kept). */
  readonly body: Buffer | undefined;
  readonly failure: TransportFailure | undefined;
  header(name: string): string | undefined;
}

/** Persistent HTTP/2 sessions to one gateway origin. */
export interface GatewayTransport {
  /** Sends one request; the promise always resolves, with an answer or a `failure`. */
  exchange(request: H2Request): Promise<GatewayAnswer>;
  /** Requests waiting for or holding a stream. */
  readonly inFlight: number;
  /** Open sessions, retiring ones that still finish their streams included. */
  readonly sessions: number;
  /** Stops taking requests (they answer `ClientClosed`), waits for those in flight, then closes every session. Idempotent. */
  close(): Promise<void>;
}

/** The origin of a gateway endpoint, which must be `https://host[:port]` and nothing more. */
export function parseGatewayOrigin(origin: string): URL {
  const url = new URL(origin);
  if (url.protocol !== 'https:' || (url.pathname !== '/' && url.pathname !== '') || url.search !== '') {
    throw new RangeError(`gateway endpoint must be https://host[:port], got ${origin}`);
  }
  return new URL(url.origin);
}

/** The free one of a transport's sessions with the fewest open streams, spreading load over them. */
export function freeWithFewestStreams<S extends { readonly streams: number; readonly free: boolean }>(sessions: readonly S[]): S | undefined {
  let best: S | undefined;
  let bestStreams = Infinity;
  for (const session of sessions) {
    const streams = session.streams;
    if (streams < bestStreams && session.free) {
      best = session;
      bestStreams = streams;
    }
  }
  return best;
}
