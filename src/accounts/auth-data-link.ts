import type { FieldOp } from '../core/ports/object-store.ts';
import { unionIdFieldName } from './auth-data/union-id.ts';
import { validateAuthData, type NormalizedAuthData } from './auth-data/validate-auth-data.ts';
import { UserField } from './user-fields.ts';

/** Operations that link each platform of a client's `authData` to a user (validating it first). */
export function linkOps(authData: unknown): FieldOp[] {
  return platformOps(validateAuthData(authData));
}

/**
 * One `set` per platform, so linking one platform never unlinks another, plus
 * the `_<platform>_unionid` marker for platforms sent as a union's main account.
 */
export function platformOps(platforms: NormalizedAuthData): FieldOp[] {
  const ops: FieldOp[] = [];
  for (const platform of platforms) {
    ops.push({ op: 'set', path: [UserField.authData, platform.platform], value: platform.data });
    if (platform.union?.mainAccount) {
      ops.push({ op: 'set', path: [unionIdFieldName(platform.union.platform)], value: { uid: platform.union.unionid } });
    }
  }
  return ops;
}
