import express, { type NextFunction, type Request, type Response } from 'express';
import { ErrorCode, HeraldError } from '../../core/errors.ts';

/**
 * Reads every body as JSON whatever its Content-Type (client libraries do not
 * all send application/json). An empty body is `{}`; anything unparsable is 107.
 */
export function jsonBody(limitBytes: number) {
  const raw = express.raw({ type: () => true, limit: limitBytes });
  return [
    raw,
    (req: Request, _res: Response, next: NextFunction): void => {
      const buffer: unknown = req.body;
      if (!Buffer.isBuffer(buffer) || buffer.length === 0) {
        req.body = {};
        return next();
      }
      try {
        req.body = JSON.parse(buffer.toString('utf8')) as unknown;
        next();
      } catch {
        next(new HeraldError(ErrorCode.invalidJson, 'The request body is not valid JSON.'));
      }
    },
  ];
}
