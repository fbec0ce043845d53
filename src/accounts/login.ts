import { isoTime } from '../core/clock.ts';
import { ErrorCode, HeraldError, fail } from '../core/errors.ts';
import type { FieldOp, StoredObject } from '../core/ports/object-store.ts';
import type { AccountDeps, AccountResult, Caller } from './account-deps.ts';
import { checkEmail, checkMobilePhone, requireObject } from './field-rules.ts';
import { LoginLock } from './login-lock.ts';
import { assertMayLogIn } from './login-rules.ts';
import { applyOwnerEntry } from './ownership-proof.ts';
import { hashPassword, needsRehash, verifyPassword } from './passwords.ts';
import { consumeSmsCode, readSmsCode, wrongSmsCode } from './sms-codes.ts';
import { UserField, userClass } from './user-fields.ts';
import { readPassword } from './user-input.ts';
import { protectedUserFields, viewUser } from './user-view.ts';

type Identifier = { field: 'username' | 'email' | 'mobilePhoneNumber'; value: string };

/**
 * POST /1.1/login: exactly one of username, email or mobilePhoneNumber, with the
 * password, or a mobile number with an SMS code. Failures count towards the
 * account lock; a locked account answers 219 whatever the credentials.
 */
export async function login(deps: AccountDeps, caller: Caller, body: unknown): Promise<AccountResult> {
  const fields = requireObject(body);
  const identifier = readIdentifier(fields);
  const usesSmsCode = identifier.field === 'mobilePhoneNumber' && fields.smsCode !== undefined && fields.password === undefined;
  const secret = usesSmsCode ? readSmsCode(fields.smsCode) : readPassword(fields.password);
  const app = caller.app.config;
  const user = await deps.store.findByUnique(app.id, userClass, identifier);
  if (!user) throw notFound(identifier);

  await new LoginLock(deps).attempt(
    app.id,
    user.objectId,
    usesSmsCode ? 'sms-code' : 'password',
    () => (usesSmsCode ? consumeSmsCode(deps, app.id, app.settings.smsCodes, identifier.value, secret) : verifyPassword(user[UserField.hashedPassword], secret)),
    () => (usesSmsCode ? wrongSmsCode() : new HeraldError(ErrorCode.passwordMismatch, 'The username and password do not match.')),
  );
  assertMayLogIn(app, user);
  if (!usesSmsCode) await upgradeImportedHash(deps, app.id, user, secret);
  // The number's owner enters the account: if the number was unverified, they take it over.
  const current = usesSmsCode ? (await applyOwnerEntry(deps, app.id, user, 'mobilePhoneNumber')).user : user;
  return { status: 200, body: viewUser(current, { self: true, master: caller.master, protectedFields: protectedUserFields(caller.app.config) }) };
}

/**
 * Replaces a password hash imported from the hosted service with argon2id
 * now that the password is known. Only if the hash is still the one checked
 * (a password changed meanwhile stays); a failure leaves the old hash, which
 * still works, and is logged.
 */
async function upgradeImportedHash(deps: AccountDeps, appId: string, user: StoredObject, password: string): Promise<void> {
  const stored = user[UserField.hashedPassword];
  if (!needsRehash(stored)) return;
  try {
    const ops: FieldOp[] = [
      { op: 'expect', path: [UserField.hashedPassword], value: stored },
      { op: 'set', path: [UserField.hashedPassword], value: await hashPassword(password) },
    ];
    await deps.store.update(appId, userClass, user.objectId, ops, { updatedAt: isoTime(deps.clock.now()) });
  } catch (error) {
    deps.logger.warn({ err: error, appId, userId: user.objectId }, 'could not replace an imported password hash; it keeps working');
  }
}

function readIdentifier(fields: Record<string, unknown>): Identifier {
  const given = (['username', 'email', 'mobilePhoneNumber'] as const).filter((field) => fields[field] !== undefined && fields[field] !== null);
  if (given.length === 0) fail(ErrorCode.usernameMissing, 'Give a username, email or mobilePhoneNumber to log in.');
  if (given.length > 1) fail(ErrorCode.internal, `Give exactly one of username, email or mobilePhoneNumber, not ${given.join(' and ')}.`);
  const field = given[0] as Identifier['field'];
  const raw = fields[field];
  if (field === 'email') return { field, value: checkEmail(raw) };
  if (field === 'mobilePhoneNumber') return { field, value: checkMobilePhone(raw) };
  if (typeof raw !== 'string') fail(ErrorCode.invalidType, 'username must be a string');
  if (raw.trim() === '') fail(ErrorCode.usernameBlank, 'Username must not be blank.');
  return { field, value: raw };
}

function notFound(identifier: Identifier): HeraldError {
  if (identifier.field === 'email') return new HeraldError(ErrorCode.emailNotFound, 'Could not find a user with that email address.');
  if (identifier.field === 'mobilePhoneNumber') return new HeraldError(ErrorCode.mobilePhoneNotFound, 'Could not find a user with that mobile phone number.');
  return new HeraldError(ErrorCode.userNotFound, 'Could not find user.');
}
