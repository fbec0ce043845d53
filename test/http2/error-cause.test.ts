import { describe, expect, it } from 'vitest';
import { connectFailure, errorCause } from '../../src/http2/h2-failure.ts';

/** An error as Node's sockets and TLS make them: a message and a string code. */
function systemError(message: string, code: string): Error {
  return Object.assign(new Error(message), { code });
}

describe('errorCause', () => {
  it.each([
    ['a refused connection, whose message names its code', systemError('connect ECONNREFUSED 10.0.0.1:443', 'ECONNREFUSED'), 'connect ECONNREFUSED 10.0.0.1:443'],
    ['a name that does not resolve', systemError('getaddrinfo ENOTFOUND api.push.apple.com', 'ENOTFOUND'), 'getaddrinfo ENOTFOUND api.push.apple.com'],
    ['a TLS verification error, led by its code', systemError('self-signed certificate', 'DEPTH_ZERO_SELF_SIGNED_CERT'), 'DEPTH_ZERO_SELF_SIGNED_CERT: self-signed certificate'],
    ['an error without a code', new Error('no HTTP/2 settings from 10.0.0.1:443 within 10000 ms'), 'no HTTP/2 settings from 10.0.0.1:443 within 10000 ms'],
    ['an error with a code and no message', systemError('', 'ECONNRESET'), 'ECONNRESET'],
    ['something thrown that is not an error', 'a string', 'a string'],
  ])('says %s as the system said it', (_name, error, said) => {
    expect(errorCause(error)).toBe(said);
  });

  it('names each address tried when connecting to every address of a name failed', () => {
    const error = Object.assign(new AggregateError([new Error('connect ECONNREFUSED ::1:443'), new Error('connect ECONNREFUSED 127.0.0.1:443')], ''), { code: 'ECONNREFUSED' });
    expect(errorCause(error)).toBe('connect ECONNREFUSED ::1:443; connect ECONNREFUSED 127.0.0.1:443');
  });

  it('keeps at most 300 characters of a long message', () => {
    const said = errorCause(new Error('x'.repeat(5000)));
    expect(said).toBe(`${'x'.repeat(300)}…`);
  });
});

describe('connectFailure', () => {
  it.each([
    ['ECONNREFUSED', 'connect ECONNREFUSED 10.0.0.1:443', { reason: 'ConnectFailed', retryable: true }],
    ['CERT_HAS_EXPIRED', 'certificate has expired', { reason: 'ServerCertificateRejected', retryable: false }],
    ['ERR_TLS_CERT_ALTNAME_INVALID', "Hostname/IP does not match certificate's altnames", { reason: 'ServerCertificateRejected', retryable: false }],
    ['ERR_SSL_TLSV1_ALERT_UNKNOWN_CA', 'tlsv1 alert unknown ca', { reason: 'BadCertificate', retryable: false }],
  ])('classifies %s and keeps what it said as the cause', (code, message, classified) => {
    expect(connectFailure(systemError(message, code))).toEqual({ ...classified, cause: message.includes(code) ? message : `${code}: ${message}` });
  });
});
