import { tlsFailureOf, type TlsFailure } from '../core/tls-failure.ts';

/** How Herald spoke to the backend, which decides what a closed connection most likely means. */
export interface ConnectionAttempt {
  readonly tls: boolean;
}

/**
 * Why a backend could not be reached, in words an operator can act on, with
 * the client's own text after them: the credentials refused, the server's
 * certificate not trusted or not naming the host, a client certificate
 * required or refused, TLS spoken to a port without it or the other way
 * round, nothing listening, no answer. It looks through the wrappers the
 * three clients put around the cause (Cassandra's per-host errors, kafkajs's
 * retries, Herald's own 503 and readiness errors) for the most telling one.
 */
export function describeConnectionFailure(error: unknown, attempt: ConnectionAttempt): string {
  const causes = causesOf(error);
  for (const cause of causes) {
    const refusal = credentialsRefusal(cause);
    if (refusal !== undefined) return refusal;
  }
  for (const cause of causes) {
    const failure = tlsFailureOf(cause);
    if (failure !== undefined) return `${tlsReasons[failure]} (${firstLine(cause.message)})`;
  }
  // The innermost says it best: a socket's code rather than the retry or 503 around it.
  for (const cause of [...causes].reverse()) {
    const reason = transportReason(cause, attempt);
    if (reason !== undefined) return reason;
  }
  return firstLine(causes.at(-1)?.message ?? String(error));
}

const tlsReasons: Record<TlsFailure, string> = {
  'untrusted-certificate': "TLS: the server's certificate is not signed by a CA Herald trusts; give the CA file that signed it",
  'expired-certificate': "TLS: the server's certificate is expired or not yet valid",
  'name-mismatch': "TLS: the server's certificate does not carry the name Herald dialled; dial a name it carries, or set the TLS server name",
  'client-certificate-required': 'TLS: the server requires a client certificate; give a certificate and key',
  'handshake-refused': 'TLS: the server refused the handshake, most likely the client certificate (not one it trusts, or none)',
  'not-tls': 'TLS: the server does not speak TLS on this port; turn TLS off or dial its TLS port',
};

/** Credentials or permissions refused, by each client's way of saying so. */
function credentialsRefusal(error: Error): string | undefined {
  // cassandra-driver's AuthenticationError: the password authenticator said no.
  if (error.name === 'AuthenticationError') return `authentication failed (${firstLine(error.message)})`;
  if (error.name === 'KafkaJSSASLAuthenticationError') {
    // A listener without the mechanism answers the handshake, then closes on the first byte of it.
    if (/Closed connection|not supported by the server/i.test(error.message)) return `SASL failed: the listener does not take this mechanism (${firstLine(error.message)})`;
    return `SASL authentication failed (${firstLine(error.message)})`;
  }
  if (error.name === 'ReplyError' && /^(WRONGPASS|NOAUTH)\b/.test(error.message)) return `authentication failed (${firstLine(error.message)})`;
  if (error.name === 'ReplyError' && /^NOPERM\b/.test(error.message)) return `the user may not run a command Herald needs; see the ACL in docs/secured-backends.md (${firstLine(error.message)})`;
  return undefined;
}

function transportReason(error: Error, attempt: ConnectionAttempt): string | undefined {
  const code = 'code' in error && typeof error.code === 'string' ? error.code : '';
  const message = firstLine(error.message);
  if (code === 'ECONNREFUSED') return `nothing accepts connections there (${message})`;
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN') return `the host name does not resolve (${message})`;
  if (/before secure TLS connection was established/.test(error.message)) {
    return `TLS: the server closed the connection during the handshake; does this port speak TLS? (${message})`;
  }
  const closed = code === 'ECONNRESET' || code === 'EPIPE' || /closed connection|connection closed|socket (was )?closed/i.test(error.message);
  if (closed && !attempt.tls) {
    return `the server closed the connection before answering: a port that wants TLS (or SASL) spoken to without it? (${message})`;
  }
  if (closed) return `the server closed the connection (${message})`;
  if (code === 'ETIMEDOUT' || /timed? ?out/i.test(error.message)) {
    return attempt.tls ? `no answer in time; a port without TLS does not answer a TLS handshake (${message})` : `no answer in time (${message})`;
  }
  return undefined;
}

/**
 * `error` and everything it wraps, outermost first: `cause`, Cassandra's
 * `innerErrors` (by host), and the `errors` of an aggregate.
 */
function causesOf(error: unknown): Error[] {
  const found: Error[] = [];
  const visit = (value: unknown, depth: number): void => {
    if (!(value instanceof Error) || depth > 8 || found.includes(value)) return;
    found.push(value);
    visit(value.cause, depth + 1);
    if ('innerErrors' in value && typeof value.innerErrors === 'object' && value.innerErrors !== null) {
      for (const inner of Object.values(value.innerErrors)) visit(inner, depth + 1);
    }
    if ('errors' in value && Array.isArray(value.errors)) for (const inner of value.errors) visit(inner, depth + 1);
  };
  visit(error, 0);
  return found;
}

/** The first line of a message, with OpenSSL's location prefix cut from its reason ("…:SSL routines:…:tlsv1 alert unknown ca:…"). */
function firstLine(text: string): string {
  const line = text.split('\n')[0]?.trim() ?? '';
  return line.replace(/[0-9A-F]{8,}:error:[0-9A-F]+:SSL routines:[A-Za-z0-9_]+:([^:]+):.*$/, '$1');
}
