import type { AppConfig } from '../config/schema.ts';
import type { FieldOp } from '../core/ports/object-store.ts';
import type { AccountDeps } from './account-deps.ts';
import { unionIdFieldName } from './auth-data/union-id.ts';
import { validateAuthData, type NormalizedAuthData } from './auth-data/validate-auth-data.ts';
import { UserField } from './user-fields.ts';

/**
 * Operations that link each platform of a client's `authData` to a user,
 * after validating it and checking its tokens where that is possible.
 */
export async function linkOps(deps: AccountDeps, app: AppConfig, authData: unknown): Promise<FieldOp[]> {
  const platforms = validateAuthData(authData);
  await deps.platformTokens.verify(app, platforms);
  return platformOps(platforms);
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
