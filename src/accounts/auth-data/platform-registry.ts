import { ErrorCode, fail } from '../../core/errors.ts';

/**
 * The kinds of third-party platform SPEC.md knows, each with its own keys.
 * `other` covers every platform key that is not registered.
 */
export type PlatformKind = 'microblog' | 'messaging-app' | 'vendor-sign-in' | 'game-store' | 'anonymous' | 'other';

/**
 * Platform keys with rules of their own. `wechat` is deliberately absent: the
 * hosted service only ever knew `weixin`, so data stored under `wechat` was kept
 * under the rules of other platforms (`uid`), and aliasing it now would stop those
 * users from logging in.
 */
const registeredKinds: ReadonlyMap<string, PlatformKind> = new Map([
  ['weibo', 'microblog'],
  ['weixin', 'messaging-app'],
  ['svc_apple', 'vendor-sign-in'],
  ['taptap', 'game-store'],
  ['anonymous', 'anonymous'],
]);

// A leading `_` is reserved (SPEC-NOTES, code 105): `_<name>_unionid` markers live
// in that namespace, and a client must not be able to write one as a platform.
const platformKeyPattern = /^[A-Za-z0-9][A-Za-z0-9_]{0,63}$/;

/** Answers the kind registered for a platform key, `other` when none is. */
export function platformKindOf(platformKey: string): PlatformKind {
  return registeredKinds.get(platformKey) ?? 'other';
}

/**
 * Answers the kind whose rules apply to `authData.<platformKey>` = `platformObject`.
 * An unregistered key whose object joins a union named after a microblog or
 * messaging-app platform (SPEC's example: `wxleanoffice` with `"platform":
 * "weixin"`) takes that platform's kind: union-id login needs one key per
 * application, since each application sees its own openid.
 */
export function platformKindFor(platformKey: string, platformObject: Readonly<Record<string, unknown>>): PlatformKind {
  const registered = registeredKinds.get(platformKey);
  if (registered !== undefined) return registered;
  const union = Object.hasOwn(platformObject, 'platform') ? platformObject['platform'] : undefined;
  const unionKind = typeof union === 'string' ? registeredKinds.get(union) : undefined;
  return unionKind !== undefined && acceptsUnionLogin(unionKind) ? unionKind : 'other';
}

/** Whether the kind accepts union-id login (`platform`, `main_account`), SPEC Rule 2. */
export function acceptsUnionLogin(kind: PlatformKind): boolean {
  return kind === 'microblog' || kind === 'messaging-app';
}

/** Throws 105 unless `platformKey` may name a platform in `authData`. */
export function assertPlatformKey(platformKey: string): void {
  if (!platformKeyPattern.test(platformKey)) {
    fail(
      ErrorCode.invalidFieldName,
      `invalid platform name in authData: '${platformKey.slice(0, 80)}'; use 1 to 64 letters, digits or '_', not starting with '_'`,
    );
  }
}
