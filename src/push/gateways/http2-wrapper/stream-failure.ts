import { constants } from 'node:http2';
import { errorCause } from '../../../http2/h2-failure.ts';
import type { TransportFailure } from '../transport-failure.ts';
import { sessionDroppedCode } from './pooled-session.ts';

/**
 * A `node:http2` stream that closed before any answer: refused, reset, past a
 * GOAWAY, or lost with its session; the stream's error, when it had one, is
 * the cause.
 */
export function streamFailure(rstCode: number, error: Error | undefined): TransportFailure {
  const cause = error === undefined ? (rstCode === constants.NGHTTP2_NO_ERROR ? undefined : `RST_STREAM ${rstCode}`) : errorCause(error);
  if (rstCode === constants.NGHTTP2_REFUSED_STREAM) return { reason: 'StreamRefused', retryable: true, cause };
  const code = (error as { code?: string } | undefined)?.code;
  if (code === sessionDroppedCode) return { reason: 'ConnectionLost', retryable: true, cause: (error as Error).message };
  if (code === 'ERR_HTTP2_GOAWAY_SESSION') return { reason: 'GoAway', retryable: true, cause };
  if (rstCode !== constants.NGHTTP2_NO_ERROR && rstCode !== constants.NGHTTP2_CANCEL) return { reason: 'StreamReset', retryable: true, cause };
  return { reason: 'ConnectionLost', retryable: true, cause: cause ?? 'the stream closed before the answer' };
}
