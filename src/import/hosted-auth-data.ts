import { toHeraldAuthData } from '../accounts/auth-data/hosted-platform-keys.ts';
import { acceptsUnionLogin, assertPlatformKey, platformKindFor } from '../accounts/auth-data/platform-registry.ts';
import { unionIdFieldName, unionIdOf } from '../accounts/auth-data/union-id.ts';
import { unionIdFieldPattern } from '../accounts/user-fields.ts';
import { ErrorCode, HeraldError, fail } from '../core/errors.ts';
import { isJsonObject } from '../query/json-value.ts';

/** A user's `authData` as Herald stores it, and the union-id markers that go beside it. */
export interface ImportedAuthData {
  authData: Record<string, Record<string, unknown>>;
  /** `_<platform>_unionid` user fields, `{uid}`: the main accounts of unions. */
  unionMarkers: Record<string, { uid: string }>;
}

/**
 * Reads an exported `authData`: an object of platform objects, each under
 * Herald's key for it and in the form the API stores a client's (`lc_apple`
 * is `svc_apple`; a `qq` object with `openid` also gets `uid`), otherwise
 * as exported (stored data is only read back; the store's
 * `_User` descriptor finds each identity, so logins find the user exactly
 * as after a sign-up). The hosted service keeps the mark of a union's main
 * account inside authData (`authData._weixin_unionid = {uid}`); Herald keeps
 * it beside it as the user field `_weixin_unionid`, so it is moved there.
 * A platform object exported as a union's main account (`platform`,
 * `unionid`, `main_account`) without its mark gets the one a link would
 * have set.
 */
export function readExportedAuthData(value: unknown): ImportedAuthData {
  if (!isJsonObject(value)) fail(ErrorCode.invalidType, 'authData must be an object of platform objects');
  const platforms: Record<string, unknown> = {};
  const unionMarkers: ImportedAuthData['unionMarkers'] = {};
  for (const [key, entry] of Object.entries(value)) {
    if (!key.startsWith('_')) platforms[key] = entry;
    else if (unionIdFieldPattern.test(key)) unionMarkers[key] = readUnionMarker(`authData.${key}`, entry);
    else fail(ErrorCode.invalidFieldName, `authData.${key} is neither a platform nor a union mark (_<platform>_unionid)`);
  }
  const authData: ImportedAuthData['authData'] = {};
  // The API's own mapping of the hosted spellings: `lc_apple` is `svc_apple`, a `qq` object with `openid` gets `uid`.
  for (const [key, platformObject] of Object.entries(toHeraldAuthData(platforms))) {
    assertPlatformKey(key);
    if (!isJsonObject(platformObject)) fail(ErrorCode.invalidType, `authData.${key} must be an object`);
    authData[key] = platformObject;
    const union = mainAccountUnion(key, platformObject);
    if (union !== null) unionMarkers[unionIdFieldName(union.platform)] ??= { uid: union.unionid };
  }
  return { authData, unionMarkers };
}

/** A union mark, `{"uid": "<union id>"}`, as the user field Herald indexes. */
export function readUnionMarker(field: string, value: unknown): { uid: string } {
  const uid = isJsonObject(value) ? value.uid : undefined;
  if (typeof uid !== 'string' || uid === '') fail(ErrorCode.invalidType, `${field} must be {"uid": "<union id>"}`);
  return { uid };
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
