import { constants } from 'node:http2';
import type { DeliveryOutcome } from './delivery.ts';

/** Why an exchange got no answer from the gateway. */
export interface TransportFailure {
  /** Herald's reason word: `Timeout`, `ConnectionLost`, `StreamRefused`, … */
  reason: string;
  /** Whether sending again (on another stream or session) may succeed. */
  retryable: boolean;
}

/** The outcome of a delivery that got no answer. */
export function transportOutcome(failure: TransportFailure): DeliveryOutcome {
  return failure.retryable ? { kind: 'retry', reason: failure.reason } : { kind: 'failed', reason: failure.reason };
}

/**
 * Error codes by which TLS refuses the gateway's certificate. Sending again
 * would meet the same certificate, so these fail rather than retry; the CA
 * setting or the endpoint is wrong.
 */
const serverCertificateCodes = new Set([
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'UNABLE_TO_GET_ISSUER_CERT',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
  'SELF_SIGNED_CERT_IN_CHAIN',
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'CERT_HAS_EXPIRED',
  'CERT_NOT_YET_VALID',
  'CERT_REVOKED',
  'CERT_UNTRUSTED',
  'CERT_REJECTED',
  'CERT_SIGNATURE_FAILURE',
  'ERR_TLS_CERT_ALTNAME_INVALID',
]);

/** Classifies an error that kept a request from getting a stream: the connection or its TLS handshake failed. */
export function connectFailure(error: unknown): TransportFailure {
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code === 'string') {
    if (serverCertificateCodes.has(code)) return { reason: 'ServerCertificateRejected', retryable: false };
    // The gateway refused our client certificate during the handshake (an alert from the peer).
    if (code.startsWith('ERR_SSL_') && code.includes('ALERT') && code.includes('CERTIFICATE')) return { reason: 'BadCertificate', retryable: false };
    if (code === 'ERR_SSL_TLSV1_ALERT_UNKNOWN_CA') return { reason: 'BadCertificate', retryable: false };
  }
  return { reason: 'ConnectFailed', retryable: true };
}

/** A stream that closed before any answer: refused by a GOAWAY, reset, or lost with its connection. */
export function streamFailure(rstCode: number, error: Error | undefined): TransportFailure {
  if (rstCode === constants.NGHTTP2_REFUSED_STREAM) return { reason: 'StreamRefused', retryable: true };
  const code = (error as { code?: string } | undefined)?.code;
  if (code === 'ERR_HTTP2_GOAWAY_SESSION') return { reason: 'GoAway', retryable: true };
  if (rstCode !== constants.NGHTTP2_NO_ERROR && rstCode !== constants.NGHTTP2_CANCEL) return { reason: 'StreamReset', retryable: true };
  return { reason: 'ConnectionLost', retryable: true };
}
