import type { NextFunction, Request, Response } from 'express';
import type { Caller } from '../../accounts/account-deps.ts';
import { secretsEqual } from '../../core/constant-time.ts';
import { ErrorCode, HeraldError } from '../../core/errors.ts';
import type { AppRegistry } from '../app-registry.ts';

/** Header names of the wire (SPEC.md, Authentication). */
export const Header = {
  appId: 'x-svc-id',
  appKey: 'x-svc-key',
  session: 'x-svc-session',
  prod: 'x-svc-prod',
} as const;

const unauthorized = () => new HeraldError(ErrorCode.unauthorized, 'Unauthorized: unknown app id or wrong key.');

/**
 * Resolves the caller from `X-SVC-Id`, `X-SVC-Key` (`<key>` or `<master>,master`)
 * and `X-SVC-Session`. Keys are compared in constant time; an unknown app and a
 * wrong key get the same answer.
 */
export function authenticate(apps: AppRegistry) {
  return (req: Request, res: Response, next: NextFunction): void => {
    const appId = req.get(Header.appId);
    const key = req.get(Header.appKey);
    const app = appId ? apps.get(appId) : undefined;
    if (!app || !key) return next(unauthorized());
    const master = key.endsWith(',master');
    const given = master ? key.slice(0, -',master'.length) : key;
    const expected = master ? app.config.masterKey : app.config.key;
    if (!secretsEqual(given, expected)) return next(unauthorized());
    const session = req.get(Header.session);
    const caller: Caller = { app, master, sessionToken: session ? session : null };
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
