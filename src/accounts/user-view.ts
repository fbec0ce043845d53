import type { StoredObject } from '../core/ports/object-store.ts';
import type { AppConfig } from '../config/schema.ts';
import { withHostedSpellings } from './auth-data/hosted-platform-keys.ts';
import { UserField, userClass, unionIdFieldPattern } from './user-fields.ts';

/** The username for display in mails and pages; empty when the user has none. */
export function usernameOf(user: StoredObject): string {
  const username = user[UserField.username];
  return typeof username === 'string' ? username : '';
}

export interface ViewOptions {
  /** The caller is this user (own session, or a login/registration answer). */
  self: boolean;
  master: boolean;
  /** The app's protected fields of `_User`, shown only to the user itself and the master key. */
  protectedFields: readonly string[];
  /** Add `emailVerified` and `mobilePhoneVerified` when absent; off for `keys` projections. */
  fillDefaults?: boolean;
}

/**
 * The user as a client may see it: never the password, the session token only
 * to the user, third-party data and protected fields (by default email and
 * mobile number) only to the user or the master key.
 */
export function viewUser(user: StoredObject, options: ViewOptions): Record<string, unknown> {
  const view: Record<string, unknown> = {};
  for (const [field, value] of Object.entries(user)) {
    if (field.startsWith('_') && !unionIdFieldPattern.test(field)) continue;
    if (field === UserField.sessionToken && !options.self) continue;
    if ((field === UserField.authData || options.protectedFields.includes(field)) && !options.self && !options.master) continue;
    // The hosted service's SDKs look their platforms up by their own spelling (`lc_apple` for `svc_apple`).
    view[field] = field === UserField.authData ? withHostedSpellings(value) : value;
  }
  if (options.fillDefaults === false) return view;
  if (!(UserField.emailVerified in view)) view[UserField.emailVerified] = null;
  if (!(UserField.mobilePhoneVerified in view)) view[UserField.mobilePhoneVerified] = false;
  return view;
}

/** The fields of `_User` the app protects (settings.protectedFields). */
export function protectedUserFields(app: AppConfig): readonly string[] {
  return app.settings.protectedFields[userClass] ?? [];
}
