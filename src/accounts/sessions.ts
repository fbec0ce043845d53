import { ErrorCode, HeraldError, fail } from '../core/errors.ts';
import { newSecret } from '../core/ids.ts';
import type { StoredObject, Store } from '../core/ports/object-store.ts';
import type { Caller } from './account-deps.ts';
import { UserField, userClass } from './user-fields.ts';

/** A new session token: 160 random bits, unrelated to any user data. */
export function newSessionToken(): string {
  return newSecret();
}

/** The user whose session token the caller sent, or null when none was sent. */
export async function sessionUser(store: Store, caller: Caller): Promise<StoredObject | null> {
  if (caller.sessionToken === null) return null;
  const user = await store.findByUnique(caller.app.config.id, userClass, { field: UserField.sessionToken, value: caller.sessionToken });
  if (!user) throw new HeraldError(ErrorCode.forbidden, 'Invalid session token: it is unknown or has been replaced.', { status: 403 });
  return user;
}

/** The session user, required; 206 when no session token was sent. */
export async function requireSessionUser(store: Store, caller: Caller): Promise<StoredObject> {
  const user = await sessionUser(store, caller);
  if (!user) fail(ErrorCode.sessionMissing, 'This operation needs the user to be logged in (X-SVC-Session).');
  return user;
}

/**
 * For user-restricted operations on `userId`: the master key, or the session of
 * that very user. Answers the session user (null for the master key).
 */
export async function requireSelfOrMaster(store: Store, caller: Caller, userId: string): Promise<StoredObject | null> {
  if (caller.master && caller.sessionToken === null) return null;
  const user = await sessionUser(store, caller);
  if (!user) {
    if (caller.master) return null;
    fail(ErrorCode.sessionMissing, 'This operation needs the session of the user (X-SVC-Session).');
  }
  if (user.objectId !== userId && !caller.master) {
    throw new HeraldError(ErrorCode.forbidden, 'The session does not belong to this user.', { status: 403 });
  }
  return user;
}
