import { ErrorCode, fail } from '../core/errors.ts';
import type { FieldOp, StoredObject } from '../core/ports/object-store.ts';
import { isoTime } from '../core/clock.ts';
import type { AccountDeps } from './account-deps.ts';
import { withUniqueErrors } from './duplicate-errors.ts';
import { userClass } from './user-fields.ts';

/** Loads a user or answers 211. */
export async function loadUser(deps: AccountDeps, appId: string, userId: string): Promise<StoredObject> {
  const user = await deps.store.get(appId, userClass, userId);
  if (!user) fail(ErrorCode.userNotFound, 'Could not find user.');
  return user;
}

/** Applies a partial update to a user, mapping unique conflicts to wire errors; 211 when gone. */
export async function updateUser(deps: AccountDeps, appId: string, userId: string, ops: FieldOp[]): Promise<StoredObject> {
  const updatedAt = isoTime(deps.clock.now());
  const user = await withUniqueErrors(() => deps.store.update(appId, userClass, userId, ops, { updatedAt }));
  if (!user) fail(ErrorCode.userNotFound, 'Could not find user.');
  return user;
}

/** `Location` of a user resource. */
export function userLocation(deps: AccountDeps, userId: string): string {
  return `${deps.publicUrl}/1.1/users/${userId}`;
}
