import type { Caller } from '../accounts/account-deps.ts';
import { secretsEqual } from '../core/constant-time.ts';
import { ErrorCode, HeraldError } from '../core/errors.ts';
import type { AppRegistry } from './app-registry.ts';

/** Header names of the wire (SPEC.md, Authentication); the gRPC API reads metadata of the same names. */
export const Header = {
  appId: 'x-svc-id',
  appKey: 'x-svc-key',
  session: 'x-svc-session',
  prod: 'x-svc-prod',
} as const;

/** What a request says about its caller: the X-SVC-Id, X-SVC-Key and X-SVC-Session headers, or the gRPC metadata of the same names. */
export interface CallerCredentials {
  appId: string | undefined;
  /** `<key>`, or `<master key>,master` for master-key authority. */
  key: string | undefined;
  session: string | undefined;
}

/**
 * Resolves the caller of a request on either transport (SPEC.md,
 * Authentication). Keys are compared in constant time; an unknown app and a
 * wrong key get the same answer, 401.
 */
export function resolveCaller(apps: AppRegistry, credentials: CallerCredentials): Caller {
  const app = credentials.appId ? apps.get(credentials.appId) : undefined;
  const key = credentials.key;
  if (!app || !key) throw unauthorized();
  const master = key.endsWith(',master');
  const given = master ? key.slice(0, -',master'.length) : key;
  const expected = master ? app.config.masterKey : app.config.key;
  if (!secretsEqual(given, expected)) throw unauthorized();
  return { app, master, sessionToken: credentials.session ? credentials.session : null };
}

function unauthorized(): HeraldError {
  return new HeraldError(ErrorCode.unauthorized, 'Unauthorized: unknown app id or wrong key.');
}
