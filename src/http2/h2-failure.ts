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
  /**
   * What the system or the server said, when it said something: the socket's
   * or TLS's error (`connect ECONNREFUSED 10.0.0.1:443`,
   * `DEPTH_ZERO_SELF_SIGNED_CERT: self-signed certificate`), the code of a
   * RST_STREAM or GOAWAY, the breach that ended a connection. For logs; made
   * only when a request fails.
   */
  readonly cause?: string;
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

/**
 * Classifies an error that kept a request from getting a stream: the
 * connection or its TLS handshake failed. The failure carries the error's
 * words as its `cause`.
 */
export function connectFailure(error: unknown): H2Failure {
  const code = (error as { code?: unknown } | null)?.code;
  const cause = errorCause(error);
  if (typeof code === 'string') {
    if (serverCertificateCodes.has(code)) return { reason: 'ServerCertificateRejected', retryable: false, cause };
    // The server refused our client certificate during the handshake (an alert from the peer).
    if (code.startsWith('ERR_SSL_') && code.includes('ALERT') && code.includes('CERTIFICATE')) return { reason: 'BadCertificate', retryable: false, cause };
    if (code === 'ERR_SSL_TLSV1_ALERT_UNKNOWN_CA') return { reason: 'BadCertificate', retryable: false, cause };
  }
  return { reason: 'ConnectFailed', retryable: true, cause };
}

/** `failure` with `cause`; the shared failure objects stay as they are. */
export function failureWithCause(failure: H2Failure, cause: string): H2Failure {
  return { reason: failure.reason, retryable: failure.retryable, cause };
}

/** Most characters of a cause: a system's error is a line, a server's words are not ours to bound. */
const maxCauseLength = 300;

/**
 * An error as one line of what the system said: its message, led by its code
 * when the message does not name it already (`connect ECONNREFUSED
 * 10.0.0.1:443` stays as it is; a TLS error reads
 * `DEPTH_ZERO_SELF_SIGNED_CERT: self-signed certificate`). An error of
 * several attempts (an address of each family tried) names each.
 */
export function errorCause(error: unknown): string {
  if (!(error instanceof Error)) return bounded(String(error));
  const code = (error as { code?: unknown }).code;
  let message = error.message;
  if (message === '' && error instanceof AggregateError) message = error.errors.map((inner: unknown) => (inner instanceof Error ? inner.message : String(inner))).join('; ');
  const text = typeof code === 'string' && !message.includes(code) ? (message === '' ? code : `${code}: ${message}`) : message;
  return bounded(text === '' ? error.name : text);
}

function bounded(text: string): string {
  return text.length > maxCauseLength ? `${text.slice(0, maxCauseLength)}…` : text;
}
