import type { Metadata, ServerErrorResponse, ServerUnaryCall, sendUnaryData } from '@grpc/grpc-js';
import type { Caller } from '../accounts/account-deps.ts';
import type { AppRegistry } from '../accounts/app-registry.ts';
import type { OutageLog } from '../api/outage-log.ts';
import { ServiceUnavailableError } from '../core/errors.ts';
import type { Logger } from '../core/logger.ts';
import type { PushDeps } from '../push/push-deps.ts';
import { asHeraldError, toGrpcError } from './grpc-errors.ts';
import { masterCaller } from './metadata-auth.ts';

/** What the gRPC handlers need: the push rules' dependencies, the apps, and where failures are told. */
export interface GrpcCallDeps {
  push: PushDeps;
  apps: AppRegistry;
  logger: Logger;
  /** Logs a backend outage once, not per refused call (the same log as REST's). */
  outages: OutageLog;
}

/**
 * The gRPC error for anything a handler threw. As on REST, only our own
 * faults are logged as errors, and a backend outage goes to the outage log.
 */
export function failure(deps: GrpcCallDeps, method: string, error: unknown): ServerErrorResponse {
  const herald = asHeraldError(error);
  if (herald instanceof ServiceUnavailableError) deps.outages.refused(herald);
  else if (herald.status >= 500) deps.logger.error({ err: error, method }, 'grpc call failed');
  return toGrpcError(herald);
}

/**
 * A unary handler that authenticates the master key, runs `handle` and
 * answers its result, or the mapped error of whatever it threw.
 */
export function unary<Request, Response>(
  deps: GrpcCallDeps,
  method: string,
  handle: (caller: Caller, request: Request, metadata: Metadata) => Promise<Response>,
) {
  return (call: ServerUnaryCall<Request, Response>, callback: sendUnaryData<Response>): void => {
    const run = async () => handle(masterCaller(deps.apps, call.metadata), call.request, call.metadata);
    run().then(
      (response) => callback(null, response),
      (error: unknown) => callback(failure(deps, method, error)),
    );
  };
}
