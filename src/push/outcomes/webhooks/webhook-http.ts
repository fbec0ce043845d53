import { Agent } from 'undici';
import { errorCause } from '../../../http2/h2-failure.ts';
import { parseRetryAfter } from '../../gateways/retry-after.ts';

/** Bytes of an endpoint's answer read at most; a longer answer is cut off with its connection. */
export const maxWebhookAnswerBytes = 4096;

export interface WebhookHttpOptions {
  /** PEM CAs trusted instead of the system roots (`push.gateways.caFile`); verification is always on. */
  ca: string | Buffer | undefined;
  /** Longest time for a whole exchange: connection, request, headers and body of the answer. */
  requestTimeoutMs: number;
}

/** What became of one POST. */
export type WebhookAnswer =
  | {
      readonly kind: 'answered';
      readonly status: number;
      /** From `Retry-After`, ms; undefined when absent or unreadable. */
      readonly retryAfterMs: number | undefined;
      /** The start of the answer's body, for the log line of a refusal. */
      readonly excerpt: string;
    }
  | { readonly kind: 'timeout' | 'unreachable'; readonly cause: string };

/**
 * Keep-alive HTTP/1.1 connections to the webhook endpoints (undici): TLS
 * verified against the CA setting, redirects not followed, a deadline for the
 * whole exchange so that an endpoint that stalls or trickles is cut off, and
 * at most `maxWebhookAnswerBytes` of an answer read. Nothing rejects: every
 * problem is an answer.
 */
export class WebhookHttp {
  readonly #agent: Agent;
  readonly #timeoutMs: number;

  constructor(options: WebhookHttpOptions) {
    this.#timeoutMs = options.requestTimeoutMs;
    this.#agent = new Agent({
      connections: 4,
      allowH2: false,
      pipelining: 1,
      connectTimeout: options.requestTimeoutMs,
      headersTimeout: options.requestTimeoutMs,
      bodyTimeout: options.requestTimeoutMs,
      connect: { ...(options.ca === undefined ? {} : { ca: options.ca }), rejectUnauthorized: true },
    });
  }

  /** POSTs `body` to `url`; `signal` cuts the exchange short (a process that stops waiting). */
  async post(url: URL, headers: Record<string, string>, body: string, now: number, signal?: AbortSignal): Promise<WebhookAnswer> {
    const deadline = AbortSignal.timeout(this.#timeoutMs);
    const cut = signal === undefined ? deadline : AbortSignal.any([deadline, signal]);
    try {
      const answer = await this.#agent.request({ origin: url.origin, path: `${url.pathname}${url.search}`, method: 'POST', headers, body, signal: cut });
      const excerpt = await readExcerpt(answer.body);
      const retryAfter = answer.headers['retry-after'];
      return { kind: 'answered', status: answer.statusCode, retryAfterMs: parseRetryAfter(Array.isArray(retryAfter) ? retryAfter[0] : retryAfter, now), excerpt };
    } catch (error) {
      if (deadline.aborted) return { kind: 'timeout', cause: `no whole answer within ${this.#timeoutMs} ms` };
      if (signal?.aborted === true) return { kind: 'unreachable', cause: 'the process stopped waiting' };
      const code = (error as { code?: unknown } | null)?.code;
      return { kind: typeof code === 'string' && code.endsWith('_TIMEOUT') ? 'timeout' : 'unreachable', cause: errorCause(error) };
    }
  }

  close(): Promise<void> {
    return this.#agent.destroy();
  }
}

/** The first bytes of an answer's body as text; the rest is not read, and the connection goes with it. */
async function readExcerpt(body: AsyncIterable<Buffer> & { destroy(): unknown }): Promise<string> {
  const pieces: Buffer[] = [];
  let size = 0;
  for await (const chunk of body) {
    pieces.push(chunk);
    size += chunk.length;
    if (size >= maxWebhookAnswerBytes) {
      body.destroy();
      break;
    }
  }
  return Buffer.concat(pieces, size).subarray(0, maxWebhookAnswerBytes).toString('utf8');
}
