import { constants } from 'node:http2';
import type { TransportFailure } from '../transport-failure.ts';

/** A `node:http2` stream that closed before any answer: refused, reset, past a GOAWAY, or lost with its session. */
export function streamFailure(rstCode: number, error: Error | undefined): TransportFailure {
  if (rstCode === constants.NGHTTP2_REFUSED_STREAM) return { reason: 'StreamRefused', retryable: true };
  const code = (error as { code?: string } | undefined)?.code;
  if (code === 'ERR_HTTP2_GOAWAY_SESSION') return { reason: 'GoAway', retryable: true };
  if (rstCode !== constants.NGHTTP2_NO_ERROR && rstCode !== constants.NGHTTP2_CANCEL) return { reason: 'StreamReset', retryable: true };
  return { reason: 'ConnectionLost', retryable: true };
}
