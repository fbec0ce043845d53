import type { NextFunction, Request, Response } from 'express';
import type { Caller } from '../../accounts/account-deps.ts';
import { ErrorCode, HeraldError } from '../../core/errors.ts';
import type { AppRegistry } from '../app-registry.ts';
import { Header, resolveCaller } from '../resolve-caller.ts';

/**
 * Resolves the caller from `X-SVC-Id`, `X-SVC-Key` (`<key>` or `<master>,master`)
 * and `X-SVC-Session` (`resolveCaller`, shared with the gRPC API).
 */
export function authenticate(apps: AppRegistry) {
  return (req: Request, res: Response, next: NextFunction): void => {
    let caller: Caller;
    try {
      caller = resolveCaller(apps, { appId: req.get(Header.appId), key: req.get(Header.appKey), session: req.get(Header.session) });
    } catch (error) {
      return next(error);
    }
    res.locals.caller = caller;
    next();
  };
}

/** The caller resolved by `authenticate`. */
export function callerOf(res: Response): Caller {
  const caller = res.locals.caller as Caller | undefined;
  if (!caller) throw new HeraldError(ErrorCode.internal, 'request reached a route without authentication', { status: 500 });
  return caller;
}
