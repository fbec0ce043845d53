import { createHash } from 'node:crypto';
import type { Caller } from '../accounts/account-deps.ts';
import { secretsEqual } from '../core/constant-time.ts';
import { ErrorCode, HeraldError } from '../core/errors.ts';
import type { AppRegistry } from '../accounts/app-registry.ts';

/** Header names of the wire (SPEC.md, Authentication); the gRPC API reads metadata of the same names. */
export const Header = {
  appId: 'x-svc-id',
  appKey: 'x-svc-key',
  session: 'x-svc-session',
  prod: 'x-svc-prod',
} as const;

/** What a request says about its caller: the X-SVC-Id, X-SVC-Key (or X-SVC-Sign) and X-SVC-Session headers, or the gRPC metadata of the same names. */
export interface CallerCredentials {
  appId: string | undefined;
  /** `<key>`, or `<master key>,master` for master-key authority. */
  key: string | undefined;
  /** `md5(timestamp + key)` in hex, `,` and the timestamp in ms, then `,master` for the master key: the key without sending it. */
  sign?: string | undefined;
  session: string | undefined;
}

/** How far a signed request's timestamp may be from the server's clock. */
export interface SignaturePolicy {
  now: number;
  windowMs: number;
}

/**
 * Resolves the caller of a request on either transport (SPEC.md,
 * Authentication): by its key, or, when it sends none and `signatures` is
 * given, by its signature. Keys and digests are compared in constant time;
 * an unknown app and a wrong key or signature get the same answer, 401.
 */
export function resolveCaller(apps: AppRegistry, credentials: CallerCredentials, signatures?: SignaturePolicy): Caller {
  const app = credentials.appId ? apps.get(credentials.appId) : undefined;
  if (!app) throw unauthorized();
  let master: boolean;
  if (credentials.key) {
    master = credentials.key.endsWith(',master');
    const given = master ? credentials.key.slice(0, -',master'.length) : credentials.key;
    if (!secretsEqual(given, master ? app.config.masterKey : app.config.key)) throw unauthorized();
  } else if (credentials.sign && signatures) {
    master = checkSignature(credentials.sign, app.config, signatures);
  } else {
    throw unauthorized();
  }
  return { app, master, sessionToken: credentials.session ? credentials.session : null };
}

/** Checks a `-Sign` header; answers whether it claims master-key authority. */
function checkSignature(sign: string, keys: { key: string; masterKey: string }, policy: SignaturePolicy): boolean {
  const match = /^([0-9a-fA-F]{32}),(\d{1,15})(,master)?$/.exec(sign);
  if (match === null) {
    throw new HeraldError(ErrorCode.unauthorized, 'Unauthorized: a request signature is md5(timestamp + key) in hex, a comma and the timestamp in ms, then ",master" for the master key.');
  }
  const [, digest = '', timestamp = '', masterFlag] = match;
  if (Math.abs(policy.now - Number(timestamp)) > policy.windowMs) {
    throw new HeraldError(
      ErrorCode.unauthorized,
      `Unauthorized: the request signature's timestamp is more than ${Math.round(policy.windowMs / 1000)} s from the server's clock; check the device's clock.`,
    );
  }
  const master = masterFlag !== undefined;
  const expected = createHash('md5')
    .update(timestamp + (master ? keys.masterKey : keys.key))
    .digest('hex');
  if (!secretsEqual(digest.toLowerCase(), expected)) throw unauthorized();
  return master;
}

function unauthorized(): HeraldError {
  return new HeraldError(ErrorCode.unauthorized, 'Unauthorized: unknown app id or wrong key.');
}
