import type { AppConfig } from '../config/schema.ts';
import { ErrorCode, fail } from '../core/errors.ts';
import type { StoredObject } from '../core/ports/object-store.ts';
import { UserField } from './user-fields.ts';

/**
 * With `refuseUnverifiedEmailLogin`, a user who has an email that is not
 * verified cannot log in (216), whichever way they log in: password, SMS
 * code, or a third-party account.
 */
export function assertMayLogIn(app: AppConfig, user: StoredObject): void {
  if (!app.settings.refuseUnverifiedEmailLogin) return;
  if (typeof user[UserField.email] === 'string' && user[UserField.emailVerified] !== true) {
    fail(ErrorCode.emailNotVerified, 'The email address is not verified.');
  }
}
