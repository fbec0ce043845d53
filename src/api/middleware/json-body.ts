import express, { type NextFunction, type Request, type Response } from 'express';
import { ErrorCode, HeraldError } from '../../core/errors.ts';
import { maxNestingDepth, nestsTooDeep } from '../../query/json-nesting.ts';

/**
 * Reads every body as JSON whatever its Content-Type (client libraries do not
 * all send application/json). An empty body is `{}`; anything unparsable, or
 * nested deeper than `maxNestingDepth` (64) levels, is 107.
 * The size as received is kept in `res.locals.bodyBytes` for routes with a
 * smaller limit of their own (a push body is at most 4096 bytes).
 */
export function jsonBody(limitBytes: number) {
  const raw = express.raw({ type: () => true, limit: limitBytes });
  return [
    raw,
    (req: Request, res: Response, next: NextFunction): void => {
      const buffer: unknown = req.body;
      res.locals.bodyBytes = Buffer.isBuffer(buffer) ? buffer.length : 0;
      if (!Buffer.isBuffer(buffer) || buffer.length === 0) {
        req.body = {};
        return next();
      }
      let parsed: unknown;
      try {
        parsed = JSON.parse(buffer.toString('utf8')) as unknown;
      } catch {
        return next(new HeraldError(ErrorCode.invalidJson, 'The request body is not valid JSON.'));
      }
      if (nestsTooDeep(parsed)) return next(bodyTooDeep());
      req.body = parsed;
      next();
    },
  ];
}

/** The answer to a body nested deeper than `maxNestingDepth`; gRPC gives it for the body a push message stands for. */
export function bodyTooDeep(): HeraldError {
  return new HeraldError(ErrorCode.invalidJson, `The request body nests deeper than ${maxNestingDepth} levels.`);
}
