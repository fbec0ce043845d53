import { ErrorCode, fail } from '../../core/errors.ts';
import { checkKey, ownValue, requireObject } from './check-key.ts';
import { heraldPlatformEntries, type HeraldPlatformEntry } from './hosted-platform-keys.ts';
import { acceptsUnionLogin, assertPlatformKey, platformKindFor, type PlatformKind } from './platform-registry.ts';
import { kindRules, type KindRules } from './platform-rules.ts';
import { unionIdOf, type UnionId } from './union-id.ts';

/** One validated `authData.<platform>` entry. */
export interface PlatformAuthData {
  /** The authData key, e.g. `weixin`, or a custom one such as `wxleanoffice`. */
  platform: string;
  kind: PlatformKind;
  /** The user's id on the platform: the value of the unique index `authData.<platform>.uid`. */
  identity: string;
  /** The union-id login the object asks for, or null. */
  union: UnionId | null;
  /** The platform object as the client sent it (a shallow copy); stored and read back unchanged. */
  data: Readonly<Record<string, unknown>>;
}

/** Validated `authData`: one entry per platform, in the client's order. */
export type NormalizedAuthData = readonly PlatformAuthData[];

/**
 * Checks a client's `authData` against SPEC's "Third-party authorisation data":
 * an object of platform objects, each with the keys its kind requires. Platforms
 * come out under Herald's keys (`lc_apple` is `svc_apple`, a `qq` object with
 * `openid` gets `uid`; see hosted-platform-keys.ts), so that is what is stored.
 *
 * Codes: 111 when something is not an object or a key has the wrong type, 113
 * when a required key is missing or blank, 105 for a bad platform name or a
 * union-id key on a platform that does not take one (SPEC Rule 2). Tokens are
 * checked separately (`PlatformTokenChecks`); see docs/third-party-login.md.
 */
export function validateAuthData(authData: unknown): NormalizedAuthData {
  const platforms = requireObject(authData, 'authData');
  if (Object.keys(platforms).length === 0) fail(ErrorCode.missingRequiredKey, 'authData must hold at least one platform');
  // Keys and objects as the hosted service's SDKs spell them (`lc_apple`, `qq` with `openid`) become Herald's.
  return heraldPlatformEntries(platforms).map(validatePlatform);
}

function validatePlatform({ key, sentAs, value }: HeraldPlatformEntry): PlatformAuthData {
  assertPlatformKey(sentAs);
  // Messages name the key the client sent.
  const path = `authData.${sentAs}`;
  const data = requireObject(value, path);
  const kind = platformKindFor(key, data);
  const rules = kindRules[kind];
  // Before the required keys, so that a union-id login on an unsupported platform
  // is reported as such rather than as whichever key it lacks.
  rejectUnionKeys(kind, rules, data, path);
  for (const [name, rule] of Object.entries(rules.required)) {
    const found = ownValue(data, name);
    if (found === undefined) fail(ErrorCode.missingRequiredKey, `${path}.${name} is required`);
    checkKey(found, rule, `${path}.${name}`);
  }
  for (const [name, rule] of Object.entries(rules.optional)) {
    const found = ownValue(data, name);
    if (found !== undefined) checkKey(found, rule, `${path}.${name}`);
  }
  return {
    platform: key,
    kind,
    identity: ownValue(data, rules.identityKey) as string,
    union: acceptsUnionLogin(kind) ? unionIdOf(data, sentAs) : null,
    data: { ...data },
  };
}

// SPEC Rule 2: rejected rather than ignored, so that a client never believes it
// joined a union, and so that no `_<name>_unionid` can come from such a platform.
function rejectUnionKeys(kind: PlatformKind, rules: KindRules, data: Readonly<Record<string, unknown>>, path: string): void {
  const refused = acceptsUnionLogin(kind) ? [] : ['platform', 'main_account'];
  if (!rules.allowsUnionid) refused.unshift('unionid');
  for (const name of refused) {
    if (Object.hasOwn(data, name)) {
      fail(
        ErrorCode.invalidFieldName,
        `${path}.${name} is not allowed: union-id login is only for microblog and messaging-app platforms`,
      );
    }
  }
}
