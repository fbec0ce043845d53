import express, { type NextFunction, type Request, type Response } from 'express';
import { ErrorCode, HeraldError } from '../../core/errors.ts';

/** Deeper documents would overflow the stack of code that walks them recursively. */
export const maxNestingDepth = 64;

/** Depth of a JSON value, walked without recursion so that the check itself cannot overflow. */
export function nestingDepth(value: unknown): number {
  let deepest = 0;
  const stack: [unknown, number][] = [[value, 0]];
  while (stack.length > 0) {
    const [node, depth] = stack.pop() as [unknown, number];
    if (node === null || typeof node !== 'object') continue;
    deepest = Math.max(deepest, depth + 1);
    if (deepest > maxNestingDepth) return deepest;
    for (const child of Object.values(node)) stack.push([child, depth + 1]);
  }
  return deepest;
}

/**
 * Reads every body as JSON whatever its Content-Type (client libraries do not
 * all send application/json). An empty body is `{}`; anything unparsable is 107.
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
      if (nestingDepth(parsed) > maxNestingDepth) {
        return next(new HeraldError(ErrorCode.invalidJson, `The request body nests deeper than ${maxNestingDepth} levels.`));
      }
      req.body = parsed;
      next();
    },
  ];
}
