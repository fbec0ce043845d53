/** Why a request got no answer. */
export type H2FailureReason =
  | 'ConnectFailed'
  | 'ServerCertificateRejected'
  | 'BadCertificate'
  | 'ConnectionLost'
  | 'ConnectionUnavailable'
  | 'GoAway'
  | 'StreamRefused'
  | 'StreamReset'
  | 'InvalidHeader'
  | 'Timeout'
  | 'ClientClosed';

/** Why a request got no answer, and whether sending it again (on another stream or connection) may succeed. */
export interface H2Failure {
  readonly reason: H2FailureReason;
  readonly retryable: boolean;
}

/** The failures a connection and a pool settle requests with; every one but `InvalidHeader` and the certificate ones may succeed when sent again. */
export const h2Failures = {
  connectionLost: { reason: 'ConnectionLost', retryable: true },
  /** The connection was not free (it checks before starting a stream); nothing was sent. */
  connectionUnavailable: { reason: 'ConnectionUnavailable', retryable: true },
  /** The stream was past the last one a GOAWAY named: the server never processed it. */
  goAway: { reason: 'GoAway', retryable: true },
  streamRefused: { reason: 'StreamRefused', retryable: true },
  streamReset: { reason: 'StreamReset', retryable: true },
  /** A header value HTTP/2 cannot carry; the request was not sent, and would not be the next time either. */
  invalidHeader: { reason: 'InvalidHeader', retryable: false },
  timeout: { reason: 'Timeout', retryable: true },
  clientClosed: { reason: 'ClientClosed', retryable: true },
} as const satisfies Record<string, H2Failure>;

/**
 * Error codes by which TLS refuses the server's certificate. Sending again
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
export function connectFailure(error: unknown): H2Failure {
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code === 'string') {
    if (serverCertificateCodes.has(code)) return { reason: 'ServerCertificateRejected', retryable: false };
    // The server refused our client certificate during the handshake (an alert from the peer).
    if (code.startsWith('ERR_SSL_') && code.includes('ALERT') && code.includes('CERTIFICATE')) return { reason: 'BadCertificate', retryable: false };
    if (code === 'ERR_SSL_TLSV1_ALERT_UNKNOWN_CA') return { reason: 'BadCertificate', retryable: false };
  }
  return { reason: 'ConnectFailed', retryable: true };
}
