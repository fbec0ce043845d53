import { ServiceUnavailableError } from '../../core/errors.ts';
import { tlsFailureOf } from '../../core/tls-failure.ts';

/**
 * Error replies by which a reachable server says it cannot serve right now:
 * loading its data, a busy script, a failover in progress, out of memory.
 */
const unavailableReplies = ['LOADING', 'BUSY', 'MASTERDOWN', 'READONLY', 'TRYAGAIN', 'CLUSTERDOWN', 'OOM', 'NOREPLICAS'];

/**
 * Turns whatever a Redis call threw into what coordination callers see:
 * unreachable, timed out or unable to serve becomes `ServiceUnavailableError`
 * (503, retryable); any other error reply (a wrong type, a broken script) is a
 * bug and passes through unchanged.
 */
export function toCoordinationError(error: unknown): Error {
  if (error instanceof ServiceUnavailableError) return error;
  if (isReplyError(error) && !unavailableReplies.some((code) => error.message.startsWith(code))) return error;
  return new ServiceUnavailableError('Redis', error);
}

/** Raised by `RedisCoordination.connect()` when the server is not ready in time. */
export class RedisNotReadyError extends Error {
  constructor(address: string, waitedMs: number, lastError: Error | undefined) {
    const reason = lastError === undefined ? '' : ` (last error: ${lastError.message})`;
    super(`Redis at ${address} was not ready within ${waitedMs} ms${reason}`, { cause: lastError });
    this.name = 'RedisNotReadyError';
  }
}

/**
 * Raised by `RedisCoordination.connect()` when the server refuses Herald in
 * a way that waiting does not mend: the credentials (WRONGPASS, NOAUTH), a
 * command the ACL user may not run (NOPERM), or the TLS handshake.
 */
export class RedisRefusedError extends Error {
  constructor(address: string, cause: Error) {
    super(`Redis at ${address} refused the connection: ${cause.message}`, { cause });
    this.name = 'RedisRefusedError';
  }
}

/** Whether a connection error is one that trying again cannot mend (see RedisRefusedError). */
export function isRefusal(error: Error): boolean {
  if (isReplyError(error) && /^(WRONGPASS|NOAUTH|NOPERM)\b/.test(error.message)) return true;
  return tlsFailureOf(error) !== undefined;
}

export function closedError(): Error {
  return new Error('coordination is closed');
}

function isReplyError(error: unknown): error is Error {
  return error instanceof Error && error.name === 'ReplyError';
}
