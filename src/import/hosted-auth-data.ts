import { acceptsUnionLogin, assertPlatformKey, platformKindFor } from '../accounts/auth-data/platform-registry.ts';
import { unionIdFieldName, unionIdOf } from '../accounts/auth-data/union-id.ts';
import { ErrorCode, HeraldError, fail } from '../core/errors.ts';
import { isJsonObject } from '../query/json-value.ts';

/** A user's `authData` as Herald stores it, and the union-id markers it implies. */
export interface ImportedAuthData {
  authData: Record<string, Record<string, unknown>>;
  /** `_<platform>_unionid` fields, `{uid}`, for platforms exported as a union's main account. */
  unionMarkers: Record<string, { uid: string }>;
}

/**
 * The platform key Herald uses for a key as the hosted service's exports
 * and SDKs spell it (`lc_apple` for `svc_apple`).
 *
 * THE ONE PLACE where the shared mapping of hosted platform keys is to be
 * called (it is being written under src/accounts/auth-data/, beside the
 * API's reading of the SDKs' authData): until it lands, keys are kept as
 * exported, which is right for every platform whose key is the same in
 * both (`weixin`, `weibo`, `qq`, custom keys).
 */
function heraldPlatformKey(exportedKey: string): string {
  return exportedKey;
}

/**
 * Reads an exported `authData`: an object of platform objects, each key
 * renamed to Herald's, kept otherwise as exported (the stored data is only
 * read back; the store's `_User` descriptor finds each identity, so logins
 * find the user exactly as after a sign-up). A platform object sent as the
 * main account of a union (`platform`, `unionid`, `main_account`) gets the
 * `_<platform>_unionid` marker a link would have set.
 */
export function readExportedAuthData(value: unknown): ImportedAuthData {
  if (!isJsonObject(value)) fail(ErrorCode.invalidType, 'authData must be an object of platform objects');
  const authData: ImportedAuthData['authData'] = {};
  const unionMarkers: ImportedAuthData['unionMarkers'] = {};
  for (const [exportedKey, platformObject] of Object.entries(value)) {
    const key = heraldPlatformKey(exportedKey);
    assertPlatformKey(key);
    if (!isJsonObject(platformObject)) fail(ErrorCode.invalidType, `authData.${exportedKey} must be an object`);
    if (Object.hasOwn(authData, key)) fail(ErrorCode.invalidFieldName, `authData holds ${key} twice (as ${exportedKey} too)`);
    authData[key] = platformObject;
    const union = mainAccountUnion(key, platformObject);
    if (union !== null) unionMarkers[unionIdFieldName(union.platform)] = { uid: union.unionid };
  }
  return { authData, unionMarkers };
}

/** The union a platform object makes its user the main account of, or null (also for a malformed union request: it is kept as data). */
function mainAccountUnion(key: string, platformObject: Record<string, unknown>): { platform: string; unionid: string } | null {
  if (!acceptsUnionLogin(platformKindFor(key, platformObject))) return null;
  try {
    const union = unionIdOf(platformObject, key);
    return union?.mainAccount ? union : null;
  } catch (error) {
    if (error instanceof HeraldError) return null;
    throw error;
  }
}
