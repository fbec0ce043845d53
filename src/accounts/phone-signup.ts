import { ErrorCode, fail } from '../core/errors.ts';
import type { AccountDeps, AccountResult, Caller } from './account-deps.ts';
import { checkMobilePhone, requireObject } from './field-rules.ts';
import { LoginLock } from './login-lock.ts';
import { assertMayLogIn } from './login-rules.ts';
import { applyOwnerEntry } from './ownership-proof.ts';
import { createUser } from './new-user.ts';
import { hashPassword } from './passwords.ts';
import { consumeSmsCode, readSmsCode, wrongSmsCode } from './sms-codes.ts';
import { UserField, userClass } from './user-fields.ts';
import { readUserInput } from './user-input.ts';
import { userLocation } from './user-records.ts';
import { protectedUserFields, viewUser } from './user-view.ts';

/**
 * POST /1.1/usersByMobilePhone: with a valid SMS code, logs in the user holding
 * the number (200) or creates one (201, username defaulting to the number).
 */
export async function signUpOrLogInByPhone(deps: AccountDeps, caller: Caller, body: unknown): Promise<AccountResult> {
  const fields = requireObject(body);
  if (fields.mobilePhoneNumber === undefined || fields.mobilePhoneNumber === '') fail(ErrorCode.mobilePhoneMissing, 'The mobile phone number is missing.');
  const number = checkMobilePhone(fields.mobilePhoneNumber);
  if (fields.smsCode === undefined) fail(ErrorCode.missingRequiredKey, 'smsCode is required.');
  const code = readSmsCode(fields.smsCode);
  const { smsCode: _smsCode, ...rest } = fields;
  const input = readUserInput({ ...rest, username: rest.username ?? number }, { master: caller.master });
  if (input.link !== undefined || input.unlink.length > 0) fail(ErrorCode.invalidFieldName, 'authData cannot be set here');

  const app = caller.app.config;
  const appId = app.id;
  const existing = await deps.store.findByUnique(appId, userClass, { field: UserField.mobilePhoneNumber, value: number });
  // Failures count against the user once one exists, else against the number.
  const subject = existing ? existing.objectId : `phone:${number}`;
  await new LoginLock(deps).attempt(appId, subject, 'sms-code', () => consumeSmsCode(deps, appId, app.settings.smsCodes, number, code), wrongSmsCode);

  if (existing) {
    assertMayLogIn(app, existing);
    // The number's owner enters the account: if the number was unverified, they take it over.
    const { user } = await applyOwnerEntry(deps, appId, existing, 'mobilePhoneNumber');
    return { status: 200, body: viewUser(user, { self: true, master: caller.master, protectedFields: protectedUserFields(caller.app.config) }) };
  }
  const hashedPassword = input.password === undefined ? undefined : await hashPassword(input.password);
  const user = await createUser(deps, caller.app, { ops: input.ops, mobilePhoneVerified: true, ...(hashedPassword ? { hashedPassword } : {}) });
  return { status: 201, location: userLocation(deps, user.objectId), body: viewUser(user, { self: true, master: caller.master, protectedFields: protectedUserFields(caller.app.config) }) };
}
