import type { StoredObject } from '../core/ports/object-store.ts';
import { UserField, unionIdFieldPattern } from './user-fields.ts';

/** The username for display in mails and pages; empty when the user has none. */
export function usernameOf(user: StoredObject): string {
  const username = user[UserField.username];
  return typeof username === 'string' ? username : '';
}

export interface ViewOptions {
  /** The caller is this user (own session, or a login/registration answer). */
  self: boolean;
  master: boolean;
  /** Add `emailVerified` and `mobilePhoneVerified` when absent; off for `keys` projections. */
  fillDefaults?: boolean;
}

/**
 * The user as a client may see it: never the password, the session token only
 * to the user, third-party data only to the user or the master key.
 */
export function viewUser(user: StoredObject, options: ViewOptions): Record<string, unknown> {
  const view: Record<string, unknown> = {};
  for (const [field, value] of Object.entries(user)) {
    if (field.startsWith('_') && !unionIdFieldPattern.test(field)) continue;
    if (field === UserField.sessionToken && !options.self) continue;
    if (field === UserField.authData && !options.self && !options.master) continue;
    view[field] = value;
  }
  if (options.fillDefaults === false) return view;
  if (!(UserField.emailVerified in view)) view[UserField.emailVerified] = null;
  if (!(UserField.mobilePhoneVerified in view)) view[UserField.mobilePhoneVerified] = false;
  return view;
}
