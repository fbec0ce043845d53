import { Metadata, status, type ServerErrorResponse } from '@grpc/grpc-js';
import protobuf from 'protobufjs';
import { ErrorCode, HeraldError, PreconditionFailedError, type ErrorCodeValue } from '../core/errors.ts';
import { protoRoot } from './proto-files.ts';

/** Trailing metadata holding the Herald error code of a failed call, as decimal text. */
export const heraldCodeKey = 'herald-code';
/** The standard trailer of the rich error model: a serialised google.rpc.Status. */
export const statusDetailsKey = 'grpc-status-details-bin';
/** The type URL of the herald.v1.ErrorDetail inside the google.rpc.Status details. */
export const errorDetailTypeUrl = 'type.googleapis.com/herald.v1.ErrorDetail';

const root = new protobuf.Root();
root.resolvePath = (_origin, target) => (target.startsWith('google/protobuf/') ? target : `${protoRoot}/${target}`);
root.loadSync(['herald/v1/error_detail.proto', 'google/rpc/status.proto'], { keepCase: true });
const errorDetailType = root.lookupType('herald.v1.ErrorDetail');
const rpcStatusType = root.lookupType('google.rpc.Status');

/** Herald codes whose gRPC status says more than INVALID_ARGUMENT. */
const statusByCode: Partial<Record<ErrorCodeValue, status>> = {
  [ErrorCode.objectNotFound]: status.NOT_FOUND,
  [ErrorCode.unauthorized]: status.UNAUTHENTICATED,
  [ErrorCode.forbidden]: status.PERMISSION_DENIED,
  [ErrorCode.clientOperationForbidden]: status.PERMISSION_DENIED,
  [ErrorCode.sessionMissing]: status.PERMISSION_DENIED,
  [ErrorCode.tooManyRequests]: status.RESOURCE_EXHAUSTED,
  [ErrorCode.unavailable]: status.UNAVAILABLE,
};

/**
 * The gRPC status of a Herald error. A retryable error is UNAVAILABLE
 * whatever its code, since that is the status clients retry on. Code 1
 * serves both our own faults (INTERNAL) and a value out of its allowed range
 * (SPEC-NOTES: a 400), so for it the error's own status decides; every other
 * refusal of a request's content is INVALID_ARGUMENT, the 4096-byte limit
 * (413) included, since the same request will never succeed.
 */
export function grpcStatusOf(error: HeraldError): status {
  if (error.retryable) return status.UNAVAILABLE;
  const mapped = statusByCode[error.code];
  if (mapped !== undefined) return mapped;
  if (error.code === ErrorCode.internal) {
    if (error.status >= 500) return status.INTERNAL;
    if (error.status === 409) return status.ABORTED;
  }
  return status.INVALID_ARGUMENT;
}

/** Any error thrown by a handler as the Herald error REST would answer; others become 1 "Internal server error." */
export function asHeraldError(error: unknown): HeraldError {
  if (error instanceof HeraldError) return error;
  if (error instanceof PreconditionFailedError) return new HeraldError(ErrorCode.internal, 'The object changed during the request; try again.', { status: 409 });
  return new HeraldError(ErrorCode.internal, 'Internal server error.', { status: 500, cause: error });
}

/**
 * The gRPC error a handler answers for a Herald error: its status (above),
 * the Herald message as the status message, and the Herald `{code, error}`
 * twice in the trailers: `herald-code` for a glance (and grpcurl), and a
 * herald.v1.ErrorDetail in the google.rpc.Status of `grpc-status-details-bin`
 * for clients that read rich errors.
 */
export function toGrpcError(error: HeraldError): ServerErrorResponse {
  const code = grpcStatusOf(error);
  const metadata = new Metadata();
  metadata.set(heraldCodeKey, String(error.code));
  const detail = errorDetailType.encode(errorDetailType.create({ code: error.code, error: error.message, retryable: error.retryable })).finish();
  const rpcStatus = rpcStatusType.create({ code, message: error.message, details: [{ type_url: errorDetailTypeUrl, value: detail }] });
  metadata.set(statusDetailsKey, Buffer.from(rpcStatusType.encode(rpcStatus).finish()));
  return Object.assign(new Error(error.message), { code, details: error.message, metadata });
}

/** Reads the herald.v1.ErrorDetail out of a `grpc-status-details-bin` trailer: the client's side, for tests and tools. */
export function readErrorDetail(details: Buffer): { code: number; error: string; retryable: boolean } | null {
  const rpcStatus = rpcStatusType.toObject(rpcStatusType.decode(details)) as { details?: { type_url: string; value: Uint8Array }[] };
  const any = rpcStatus.details?.find((item) => item.type_url === errorDetailTypeUrl);
  if (any === undefined) return null;
  const detail = errorDetailType.toObject(errorDetailType.decode(any.value), { defaults: true }) as { code: number; error: string; retryable: boolean };
  return { code: detail.code, error: detail.error, retryable: detail.retryable };
}
