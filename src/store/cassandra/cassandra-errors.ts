import { errors, types } from 'cassandra-driver';
import { ServiceUnavailableError } from '../../core/errors.ts';

const codes = types.responseErrorCodes;

/** Server answers that mean "not now": too few replicas, overload, timeouts. */
const unavailableCodes = new Set<number>([
  codes.unavailableException,
  codes.overloaded,
  codes.isBootstrapping,
  codes.truncateError,
  codes.writeTimeout,
  codes.readTimeout,
  codes.readFailure,
  codes.writeFailure,
  // CAS_WRITE_UNKNOWN (protocol v5): a lightweight transaction whose outcome is not known.
  0x1700,
]);

const socketErrorCodes = new Set(['ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENOTFOUND']);

/**
 * Turns every failure to reach Cassandra (no host, connection refused or
 * closed, client timeout, a replica timeout or unavailability) into
 * ServiceUnavailableError, answered as 503. Other errors pass through: they
 * are faults in Herald, not in the service.
 */
export function translateCassandraError(error: unknown): Error {
  if (error instanceof ServiceUnavailableError) return error;
  if (isServiceFailure(error)) return new ServiceUnavailableError('Cassandra', error);
  return error instanceof Error ? error : new Error(String(error));
}

/**
 * What a failure says about the node, for a writer that paces itself:
 * `congested` when it answered that it is overloaded or did not answer in
 * time (fewer statements in flight help), `unreachable` when no node or too
 * few replicas could be reached (only waiting helps), null when it is not a
 * failure to reach Cassandra at all.
 */
export function cassandraFailureKind(error: unknown): 'congested' | 'unreachable' | null {
  if (error instanceof ServiceUnavailableError) return cassandraFailureKind(error.cause);
  if (error instanceof errors.OperationTimedOutError || error instanceof errors.BusyConnectionError) return 'congested';
  if (error instanceof errors.ResponseError && congestedCodes.has(error.code)) return 'congested';
  return isServiceFailure(error) ? 'unreachable' : null;
}

const congestedCodes = new Set<number>([codes.overloaded, codes.writeTimeout, codes.readTimeout, 0x1700]);

/** The error a closed store answers with. */
export function closedStoreError(): ServiceUnavailableError {
  return new ServiceUnavailableError('Cassandra', new Error('the Cassandra store is closed'));
}

function isServiceFailure(error: unknown): boolean {
  if (error instanceof errors.NoHostAvailableError || error instanceof errors.OperationTimedOutError) return true;
  if (error instanceof errors.BusyConnectionError) return true;
  if (error instanceof errors.ResponseError) return unavailableCodes.has(error.code);
  if (!(error instanceof Error)) return false;
  // The driver marks a request lost with its connection ("Socket was closed") this way.
  if ('isSocketError' in error && error.isSocketError === true) return true;
  return 'code' in error && typeof error.code === 'string' && socketErrorCodes.has(error.code);
}
