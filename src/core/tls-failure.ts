/**
 * What went wrong in a TLS handshake with a backend, read from the error
 * Node gives (its `code`, set by Node's certificate checks and by OpenSSL for
 * the alerts a server sends):
 *
 * - `untrusted-certificate`: the server's certificate does not chain to a CA
 *   Herald trusts;
 * - `expired-certificate`: it is outside its dates;
 * - `name-mismatch`: it does not carry the name Herald dialled (or the server
 *   name it was given);
 * - `client-certificate-required`: the server asks for a client certificate
 *   and none was sent;
 * - `handshake-refused`: the server ended the handshake with an alert, most
 *   often because it does not accept the client certificate sent;
 * - `not-tls`: the server answered the handshake with something that is not
 *   TLS: a port without TLS.
 *
 * None of them goes away by trying again.
 */
export type TlsFailure =
  | 'untrusted-certificate'
  | 'expired-certificate'
  | 'name-mismatch'
  | 'client-certificate-required'
  | 'handshake-refused'
  | 'not-tls';

const untrusted = new Set([
  'SELF_SIGNED_CERT_IN_CHAIN',
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'UNABLE_TO_GET_ISSUER_CERT',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
  'CERT_UNTRUSTED',
  'CERT_SIGNATURE_FAILURE',
  'CERT_REJECTED',
]);

const outOfDate = new Set(['CERT_HAS_EXPIRED', 'CERT_NOT_YET_VALID']);

const notTls = new Set(['ERR_SSL_WRONG_VERSION_NUMBER', 'ERR_SSL_PACKET_LENGTH_TOO_LONG', 'ERR_SSL_HTTP_REQUEST', 'ERR_SSL_RECORD_LAYER_FAILURE']);

/** The TLS failure `error` stands for, or undefined when it is not one. */
export function tlsFailureOf(error: unknown): TlsFailure | undefined {
  if (!(error instanceof Error)) return undefined;
  const code = 'code' in error && typeof error.code === 'string' ? error.code : '';
  if (untrusted.has(code)) return 'untrusted-certificate';
  if (outOfDate.has(code)) return 'expired-certificate';
  if (code === 'ERR_TLS_CERT_ALTNAME_INVALID') return 'name-mismatch';
  if (code === 'ERR_SSL_TLSV13_ALERT_CERTIFICATE_REQUIRED') return 'client-certificate-required';
  if (notTls.has(code)) return 'not-tls';
  // Any other alert the server sent: bad_certificate, unknown_ca, certificate_unknown, access_denied, and
  // internal_error, which is how a Java server answers a client certificate it cannot verify.
  if (/^ERR_SSL_.*ALERT/.test(code)) return 'handshake-refused';
  return undefined;
}
