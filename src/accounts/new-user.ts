import { isoTime } from '../core/clock.ts';
import { newObjectId } from '../core/ids.ts';
import type { FieldOp, StoredObject } from '../core/ports/object-store.ts';
import { applyOps } from '../query/apply-ops.ts';
import type { AccountDeps, AppRuntime } from './account-deps.ts';
import { withUniqueErrors } from './duplicate-errors.ts';
import { sendVerificationLink } from './email-verification.ts';
import { defaultUserAcl } from './field-rules.ts';
import { newSessionToken } from './sessions.ts';
import { UserField, userClass } from './user-fields.ts';

export interface NewUserSpec {
  ops: FieldOp[];
  /** argon2 hash of the password, when the user has one. */
  hashedPassword?: string;
  mobilePhoneVerified?: boolean;
}

/**
 * Creates a user with a fresh id and session token, the default ACL and the
 * verification state the app's settings ask for; mails the verification link.
 */
export async function createUser(deps: AccountDeps, app: AppRuntime, spec: NewUserSpec): Promise<StoredObject> {
  const now = isoTime(deps.clock.now());
  const objectId = newObjectId();
  const fields = applyOps({ objectId, createdAt: now, updatedAt: now }, spec.ops);
  const verifying = app.config.settings.emailVerification && typeof fields[UserField.email] === 'string';
  const user: StoredObject = {
    ...fields,
    [UserField.acl]: fields[UserField.acl] ?? defaultUserAcl(objectId),
    [UserField.emailVerified]: fields[UserField.emailVerified] ?? (verifying ? false : null),
    [UserField.mobilePhoneVerified]: spec.mobilePhoneVerified ?? fields[UserField.mobilePhoneVerified] ?? false,
    [UserField.sessionToken]: newSessionToken(),
    objectId,
    createdAt: now,
    updatedAt: now,
  };
  if (spec.hashedPassword !== undefined) user[UserField.hashedPassword] = spec.hashedPassword;
  await withUniqueErrors(() => deps.store.insert(app.config.id, userClass, user));
  if (verifying && user[UserField.emailVerified] === false) await sendVerificationLink(deps, app, user);
  return user;
}
