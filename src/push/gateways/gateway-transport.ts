import type { Logger } from '../../core/logger.ts';
import type { GatewayName } from './delivery.ts';
import type { GatewayMetrics } from './gateway-metrics.ts';
import type { TransportFailure } from './transport-failure.ts';

/**
 * How a gateway client reaches its gateway: `herald`, Herald's own HTTP/2
 * client (`src/http2/`), or `http2-wrapper`, Node's `node:http2` sessions
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

/** One POST to a gateway: `:method`, `:scheme` and `:authority` are the transport's. */
export interface GatewayRequest {
  readonly path: string;
  /**
   * Whether the path is the same on every request (FCM's), so that it may
   * enter the header table; APNs's carries the device token and stays out.
   */
  readonly pathRepeats: boolean;
  /** Other headers as names and values alternating; lower-case names, octet-string values. */
  readonly headers: readonly string[];
  readonly body: Buffer;
}

/** The gateway's answer to one request, or why none came. */
export interface GatewayAnswer {
  /** HTTP status; 0 when no answer arrived (`failure` says why). */
  readonly status: number;
  /** The body of an answer other than 200, at most 64 KiB of it (`keptBodyLimit`); a 200's is not kept. */
  readonly body: Buffer | undefined;
  readonly failure: TransportFailure | undefined;
  header(name: string): string | undefined;
}

/** Persistent HTTP/2 sessions to one gateway origin. */
export interface GatewayTransport {
  /** Sends one request; the promise always resolves, with an answer or a `failure`. */
  exchange(request: GatewayRequest): Promise<GatewayAnswer>;
  /**
   * Resolves once a session is open, opening one when none is; also when it
   * cannot be (the connect failed or backs off, the transport closed). Never
   * rejects: the requests that follow meet the failure.
   */
  warm(): Promise<void>;
  /** Requests waiting for or holding a stream. */
  readonly inFlight: number;
  /** Open sessions, retiring ones that still finish their streams included. */
  readonly sessions: number;
  /** Stops taking requests (they answer `ClientClosed`), waits for those in flight, then closes every session. Idempotent. */
  close(): Promise<void>;
}
