import { Agent } from 'undici';
import { connectFailure, errorCause } from '../../../http2/h2-failure.ts';
import type { MakerName } from '../delivery.ts';
import type { GatewayMetrics } from '../gateway-metrics.ts';
import type { TransportFailure } from '../transport-failure.ts';

/** Most bytes of an answer kept, as the HTTP/2 transports keep of an error body; the rest is read and dropped. */
export const maxMakerAnswerBytes = 64 * 1024;

export interface MakerHttpOptions {
  gateway: MakerName;
  /** PEM CAs trusted instead of the system roots (the CA setting); verification is always on. */
  ca: string | Buffer | undefined;
  /** Most keep-alive connections to one origin. */
  connections: number;
  /** Longest time for a whole exchange: connection, request, headers and body of the answer. */
  requestTimeoutMs: number;
  metrics: GatewayMetrics;
}

/** One POST: the URL's origin picks the pool, its path and query go in the request line. */
export interface MakerRequest {
  url: URL;
  headers: Record<string, string>;
  body: string | Buffer;
  /** Whether the answer's latency counts in `herald_gateway_request_duration_seconds` (sends do, token requests do not). */
  observed?: boolean;
  /**
   * Most bytes of the answer kept, default `maxMakerAnswerBytes`: a batch
   * answer that lists each of 1000 tokens (OPPO's) needs more.
   */
  maxAnswerBytes?: number;
}

/** A maker's answer, or why none came. */
export type MakerAnswer =
  | {
      readonly failure: undefined;
      readonly status: number;
      /** At most `maxMakerAnswerBytes` of the body. */
      readonly body: Buffer;
      /** Whether the body was longer than what was kept. */
      readonly truncated: boolean;
      header(name: string): string | undefined;
    }
  | { readonly failure: TransportFailure };

/**
 * Keep-alive HTTP/1.1 connections to a maker's endpoints (undici), for the
 * makers that do not speak HTTP/2: at most `connections` per origin, TLS
 * verified against the CA setting, and a deadline for the whole exchange so
 * that a server that trickles or never ends its answer is cut off, as the
 * FCM token endpoint is. Every problem is an answer with a `failure`; nothing
 * rejects.
 */
export class MakerHttp {
  readonly #options: MakerHttpOptions;
  readonly #agent: Agent;
  #inFlight = 0;
  readonly #untrack: () => void;
  /** The failure of an exchange cut at its deadline. */
  readonly #timeout: TransportFailure;
  #closing: Promise<void> | undefined;

  constructor(options: MakerHttpOptions) {
    this.#options = options;
    const { gateway, metrics, requestTimeoutMs } = options;
    this.#timeout = { reason: 'Timeout', retryable: true, cause: `no whole answer within ${requestTimeoutMs} ms` };
    this.#agent = new Agent({
      connections: options.connections,
      allowH2: false,
      pipelining: 1,
      connectTimeout: requestTimeoutMs,
      headersTimeout: requestTimeoutMs,
      bodyTimeout: requestTimeoutMs,
      connect: { ...(options.ca === undefined ? {} : { ca: options.ca }), rejectUnauthorized: true },
    });
    this.#agent.on('connect', () => metrics.sessionOpened(gateway));
    this.#agent.on('disconnect', () => metrics.sessionClosed(gateway));
    this.#untrack = metrics.trackStreams(gateway, () => this.#inFlight);
  }

  /** Requests sent and not yet answered. */
  get inFlight(): number {
    return this.#inFlight;
  }

  async post(request: MakerRequest): Promise<MakerAnswer> {
    if (this.#closing !== undefined) return { failure: { reason: 'ClientClosed', retryable: true } };
    const { requestTimeoutMs, gateway, metrics } = this.#options;
    const deadline = new AbortController();
    const timer = setTimeout(() => deadline.abort(), requestTimeoutMs);
    const started = performance.now();
    this.#inFlight += 1;
    try {
      const answer = await this.#agent.request({
        origin: request.url.origin,
        path: `${request.url.pathname}${request.url.search}`,
        method: 'POST',
        headers: request.headers,
        body: request.body,
        signal: deadline.signal,
      });
      const { kept, truncated } = await keepBounded(answer.body, request.maxAnswerBytes ?? maxMakerAnswerBytes);
      if (request.observed !== false) metrics.observeLatency(gateway, (performance.now() - started) / 1000);
      const headers = answer.headers;
      return {
        failure: undefined,
        status: answer.statusCode,
        body: kept,
        truncated,
        header: (name) => {
          const value = headers[name];
          return Array.isArray(value) ? value[0] : value;
        },
      };
    } catch (error) {
      return { failure: deadline.signal.aborted ? this.#timeout : requestFailure(error) };
    } finally {
      clearTimeout(timer);
      this.#inFlight -= 1;
    }
  }

  /** Closes the connections once the requests in flight are answered; later requests answer `ClientClosed`. Idempotent. */
  close(): Promise<void> {
    this.#closing ??= this.#agent.close().then(this.#untrack);
    return this.#closing;
  }
}

/** Reads a body, keeping at most `limit` bytes in pieces joined once; the rest is read and dropped so the connection stays usable. */
async function keepBounded(body: AsyncIterable<Buffer>, limit: number): Promise<{ kept: Buffer; truncated: boolean }> {
  const pieces: Buffer[] = [];
  let size = 0;
  let truncated = false;
  for await (const chunk of body) {
    if (truncated) continue;
    if (size + chunk.length > limit) {
      pieces.push(chunk.subarray(0, limit - size));
      size = limit;
      truncated = true;
      continue;
    }
    pieces.push(chunk);
    size += chunk.length;
  }
  return { kept: pieces.length === 1 ? (pieces[0] as Buffer) : Buffer.concat(pieces, size), truncated };
}

/** undici's error codes for a connection that ended before the answer did. */
const lostCodes = new Set(['UND_ERR_SOCKET', 'ECONNRESET', 'EPIPE', 'UND_ERR_RES_CONTENT_LENGTH_MISMATCH', 'UND_ERR_REQ_CONTENT_LENGTH_MISMATCH']);
const timeoutCodes = new Set(['UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT', 'UND_ERR_CONNECT_TIMEOUT']);
const closedCodes = new Set(['UND_ERR_DESTROYED', 'UND_ERR_CLOSED']);

/** Herald's word for a request that got no answer, as the HTTP/2 transports use them, with what undici or the system said. */
function requestFailure(error: unknown): TransportFailure {
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code === 'string') {
    if (lostCodes.has(code)) return { reason: 'ConnectionLost', retryable: true, cause: errorCause(error) };
    if (timeoutCodes.has(code)) return { reason: 'Timeout', retryable: true, cause: errorCause(error) };
    if (closedCodes.has(code)) return { reason: 'ClientClosed', retryable: true, cause: errorCause(error) };
  }
  return connectFailure(error);
}
