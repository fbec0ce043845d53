import type { NextFunction, Request, Response } from 'express';
import { ErrorCode, HeraldError, PreconditionFailedError, ServiceUnavailableError } from '../../core/errors.ts';
import type { Logger } from '../../core/logger.ts';
import { maskLinkTokens } from '../mask-link-tokens.ts';
import type { OutageLog } from '../outage-log.ts';

/** Errors from express's own body reading carry a `type` and a `status`. */
interface BodyReadError {
  type?: string;
  status?: number;
}

/**
 * Maps every error to a `{code, error}` answer; only our own faults are 5xx,
 * and only they are logged as errors. A backend outage is logged once when it
 * starts and once when it ends (OutageLog), not per refused request.
 */
export function errorHandler(logger: Logger, outages: OutageLog) {
  return (error: unknown, req: Request, res: Response, _next: NextFunction): void => {
    const herald = toHeraldError(error);
    if (herald instanceof ServiceUnavailableError) outages.refused(herald);
    else if (herald.status >= 500) logger.error({ err: error, method: req.method, path: maskLinkTokens(req.path) }, 'request failed');
    if (herald.retryable) res.set('Retry-After', '5');
    res.status(herald.status).json(herald.toBody());
  };
}

function toHeraldError(error: unknown): HeraldError {
  if (error instanceof HeraldError) return error;
  // Another request changed the object between this one's read and its write.
  if (error instanceof PreconditionFailedError) return new HeraldError(ErrorCode.internal, 'The object changed during the request; try again.', { status: 409 });
  const bodyError = error as BodyReadError;
  if (bodyError?.type === 'entity.too.large') return new HeraldError(ErrorCode.bodyTooLarge, 'The request body is too large.');
  if (bodyError?.type === 'entity.parse.failed') return new HeraldError(ErrorCode.invalidJson, 'The request body is malformed.');
  if (typeof bodyError?.status === 'number' && bodyError.status >= 400 && bodyError.status < 500) {
    return new HeraldError(ErrorCode.internal, 'The request could not be read.', { status: bodyError.status });
  }
  return new HeraldError(ErrorCode.internal, 'Internal server error.', { status: 500, cause: error });
}

/** Unknown paths answer 404 in the same shape. */
export function notFoundHandler(req: Request, res: Response): void {
  res.status(404).json({ code: ErrorCode.internal, error: `Unknown endpoint: ${req.method} ${req.path}` });
}
