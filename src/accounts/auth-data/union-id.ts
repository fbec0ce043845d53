import { ErrorCode, fail } from '../../core/errors.ts';
import type { UniqueKey } from '../../core/ports/object-store.ts';
import { ownValue, requireString } from './check-key.ts';

/** A union-id login request carried inside one platform object. */
export interface UnionId {
  /** Name of the union: the `platform` value inside the object, e.g. `weixin`. */
  platform: string;
  /** The id the platform gives one user across all applications of one developer. */
  unionid: string;
  /** `main_account`: whether the user this login lands on becomes the union's main account. */
  mainAccount: boolean;
}

// Single underscores between letters and digits only, so `_<platform>_unionid`
// splits back into its platform unambiguously.
const fieldFragment = /^[A-Za-z0-9]+(?:_[A-Za-z0-9]+)*$/;
const maxFragmentLength = 64;

/**
 * Whether a platform object asks for union-id login. `platform` or
 * `main_account` do; `unionid` alone does not, because platforms hand it out in
 * their own token answers (the messaging app, the game store) and clients pass
 * those through unchanged.
 */
export function requestsUnionLogin(platformObject: Readonly<Record<string, unknown>>): boolean {
  return Object.hasOwn(platformObject, 'platform') || Object.hasOwn(platformObject, 'main_account');
}

/**
 * Reads the union-id login request of `authData.<platformKey>`, or null when it
 * makes none. Does not check that the platform's kind allows union-id login;
 * `validateAuthData` does. Throws 113 when `unionid` or `platform` is missing,
 * 111 for wrong types and 105 for a `platform` unfit for a field name.
 */
export function unionIdOf(platformObject: Readonly<Record<string, unknown>>, platformKey = '<platform>'): UnionId | null {
  if (!requestsUnionLogin(platformObject)) return null;
  const path = `authData.${platformKey}`;
  if (ownValue(platformObject, 'unionid') === undefined) {
    fail(ErrorCode.missingRequiredKey, `${path}.unionid is required for union-id login`);
  }
  if (ownValue(platformObject, 'platform') === undefined) {
    fail(ErrorCode.missingRequiredKey, `${path}.platform is required for union-id login`);
  }
  const unionid = requireString(ownValue(platformObject, 'unionid'), `${path}.unionid`);
  const platform = requireString(ownValue(platformObject, 'platform'), `${path}.platform`);
  assertFieldFragment(platform, `${path}.platform`);
  const mainAccount = parseMainAccount(ownValue(platformObject, 'main_account'), `${path}.main_account`);
  return { platform, unionid, mainAccount };
}

/**
 * The user field that marks the main account of a union: `_<platform>_unionid`,
 * holding `{uid: <unionid>}`. `<platform>` is the `platform` value, not the
 * authData key (SPEC-NOTES, Users).
 */
export function unionIdFieldName(platform: string): string {
  assertFieldFragment(platform, 'union platform');
  return `_${platform}_unionid`;
}

/** The unique index that allows at most one main account per union id. */
export function unionIdUniqueKey(union: Pick<UnionId, 'platform' | 'unionid'>): UniqueKey {
  return { field: `${unionIdFieldName(union.platform)}.uid`, value: union.unionid };
}

// The hosted service's own example sends `main_account` as the string "true".
function parseMainAccount(value: unknown, path: string): boolean {
  if (value === undefined || value === false || value === 'false') return false;
  if (value === true || value === 'true') return true;
  fail(ErrorCode.invalidType, `${path} must be true or false`);
}

function assertFieldFragment(value: string, what: string): void {
  if (value.length > maxFragmentLength || !fieldFragment.test(value)) {
    fail(ErrorCode.invalidFieldName, `${what} must be up to 64 letters and digits, with single '_' between them`);
  }
}
