import type { NextFunction, Request, Response } from 'express';
import type { Caller } from '../../accounts/account-deps.ts';
import type { Clock } from '../../core/clock.ts';
import { ErrorCode, HeraldError } from '../../core/errors.ts';
import type { AuthConfig } from '../../config/schema.ts';
import type { AppRegistry } from '../../accounts/app-registry.ts';
import { readCredentials } from '../request-credentials.ts';
import { resolveCaller } from '../resolve-caller.ts';

/**
 * Resolves the caller from `X-SVC-Id`, `X-SVC-Key` (`<key>` or
 * `<master>,master`) or `X-SVC-Sign`, and `X-SVC-Session`, or the same
 * headers under another accepted prefix (`X-LC-*`, as the hosted service's
 * SDKs send them), through `resolveCaller`, shared with the gRPC API.
 */
export function authenticate(apps: AppRegistry, auth: AuthConfig, clock: Clock) {
  const windowMs = auth.signatureWindowSeconds * 1000;
  return (req: Request, res: Response, next: NextFunction): void => {
    let caller: Caller;
    try {
      const credentials = readCredentials((name) => req.get(name), auth.headerPrefixes);
      caller = resolveCaller(apps, credentials, { now: clock.now(), windowMs });
      res.locals.prodHeader = credentials.prod;
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

/** The request's `X-SVC-Prod` (or `X-LC-Prod`) header, as `authenticate` read it. */
export function prodHeaderOf(res: Response): string | undefined {
  return typeof res.locals.prodHeader === 'string' ? res.locals.prodHeader : undefined;
}
