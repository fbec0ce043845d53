import { ErrorCode, HeraldError, fail } from '../core/errors.ts';
import type { FieldOp, StoredObject } from '../core/ports/object-store.ts';
import type { AccountDeps, AccountResult, Caller } from './account-deps.ts';
import { linkOps } from './auth-data-link.ts';
import { heraldPlatformKey } from './auth-data/hosted-platform-keys.ts';
import { sendVerificationLink } from './email-verification.ts';
import { aclAllows, requireObject } from './field-rules.ts';
import { LoginLock } from './login-lock.ts';
import { newLinkGenerationOp } from './account-links.ts';
import { hashPassword, verifyPassword } from './passwords.ts';
import { newSessionToken, requireSelfOrMaster } from './sessions.ts';
import { UserField, userClass } from './user-fields.ts';
import { readPassword, readUserInput } from './user-input.ts';
import { loadUser, updateUser } from './user-records.ts';
import { protectedUserFields, viewUser } from './user-view.ts';

/** Checks that an ordinary-key caller may write this user: its own session and an ACL that allows it. */
async function writableUser(deps: AccountDeps, caller: Caller, userId: string): Promise<StoredObject> {
  const sessionUser = await requireSelfOrMaster(deps.store, caller, userId);
  // The session lookup already read the user when it is writing itself.
  const user = sessionUser?.objectId === userId ? sessionUser : await loadUser(deps, caller.app.config.id, userId);
  if (!caller.master && !aclAllows(user[UserField.acl], sessionUser?.objectId ?? null, 'write')) {
    throw new HeraldError(ErrorCode.forbidden, 'The ACL of this user does not allow the write.', { status: 403 });
  }
  return user;
}

/**
 * PUT /1.1/users/<id>: partial update; unique fields are re-checked by the
 * store, a new email resets `emailVerified` and is sent a new link, `authData`
 * links platforms and `authData.<platform>: {__op: Delete}` unlinks one.
 */
export async function updateUserFields(deps: AccountDeps, caller: Caller, userId: string, body: unknown): Promise<AccountResult> {
  const user = await writableUser(deps, caller, userId);
  const fields = requireObject(body);
  const input = readUserInput(fields, { master: caller.master });
  const ops: FieldOp[] = [...input.ops];
  if (input.link !== undefined) ops.push(...(await linkOps(deps, caller.app.config, input.link)));
  // `authData.lc_apple` (the hosted SDKs' spelling) unlinks the `svc_apple` it was stored as.
  for (const platform of new Set(input.unlink.map(heraldPlatformKey))) ops.push({ op: 'delete', path: [UserField.authData, platform] });
  const emailChanged = input.email !== undefined && input.email !== user[UserField.email];
  if (emailChanged) {
    const verifying = caller.app.config.settings.emailVerification && input.email !== null;
    if (!(UserField.emailVerified in fields)) ops.push({ op: 'set', path: [UserField.emailVerified], value: verifying ? false : null });
    // Links sent to the old address stop working.
    if (input.password === undefined) ops.push(newLinkGenerationOp());
  }
  // How the old address was verified says nothing of a new one, and the master key's word replaces a link's.
  if ((emailChanged || UserField.emailVerified in fields) && UserField.emailVerifiedByLink in user) {
    ops.push({ op: 'delete', path: [UserField.emailVerifiedByLink] });
  }
  if (input.mobilePhoneNumber !== undefined && input.mobilePhoneNumber !== user[UserField.mobilePhoneNumber] && !(UserField.mobilePhoneVerified in fields)) {
    ops.push({ op: 'set', path: [UserField.mobilePhoneVerified], value: false });
  }
  if (input.password !== undefined) ops.push(...(await passwordOps(caller, input.password)));
  if (ops.length === 0) return { status: 200, body: { updatedAt: user.updatedAt } };

  const updated = await updateUser(deps, caller.app.config.id, userId, ops);
  if (emailChanged && updated[UserField.emailVerified] === false) await sendVerificationLink(deps, caller.app, updated);
  const answer: Record<string, unknown> = { updatedAt: updated.updatedAt };
  if (input.unlink.length > 0) answer.objectId = updated.objectId;
  if (input.password !== undefined && caller.app.config.settings.forceReloginAfterPasswordChange) answer.sessionToken = updated[UserField.sessionToken];
  return { status: 200, body: answer };
}

/** A new password: outstanding emailed links stop working, and with the app's setting every session ends. */
async function passwordOps(caller: Caller, password: string): Promise<FieldOp[]> {
  const ops: FieldOp[] = [{ op: 'set', path: [UserField.hashedPassword], value: await hashPassword(password) }, newLinkGenerationOp()];
  if (caller.app.config.settings.forceReloginAfterPasswordChange) ops.push({ op: 'set', path: [UserField.sessionToken], value: newSessionToken() });
  return ops;
}

/**
 * PUT /1.1/users/<id>/updatePassword: needs the old password (210 when wrong),
 * checked under the account lock like any other credential. A user without a
 * password (signed up by SMS or a third party, or whose password went when the
 * owner of their unverified number signed in by SMS) sets one without
 * `old_password`.
 */
export async function changePassword(deps: AccountDeps, caller: Caller, userId: string, body: unknown): Promise<AccountResult> {
  const user = await writableUser(deps, caller, userId);
  const fields = requireObject(body);
  const newPassword = readPassword(fields.new_password);
  const hash = user[UserField.hashedPassword];
  if (typeof hash === 'string') {
    if (fields.old_password === undefined) fail(ErrorCode.passwordMissing, 'old_password is missing.');
    if (typeof fields.old_password !== 'string') fail(ErrorCode.invalidType, 'old_password must be a string');
    const oldPassword = fields.old_password;
    await new LoginLock(deps).attempt(
      caller.app.config.id,
      user.objectId,
      'password',
      () => verifyPassword(hash, oldPassword),
      () => new HeraldError(ErrorCode.passwordMismatch, 'The old password is wrong.'),
    );
  }
  const ops: FieldOp[] = [{ op: 'expect', path: [UserField.hashedPassword], value: hash }, ...(await passwordOps(caller, newPassword))];
  const updated = await updateUser(deps, caller.app.config.id, userId, ops);
  return { status: 200, body: { updatedAt: updated.updatedAt, objectId: updated.objectId, sessionToken: updated[UserField.sessionToken] } };
}

/** PUT /1.1/users/<id>/refreshSessionToken: a new token; the old one stops working. */
export async function refreshSessionToken(deps: AccountDeps, caller: Caller, userId: string): Promise<AccountResult> {
  await writableUser(deps, caller, userId);
  const updated = await updateUser(deps, caller.app.config.id, userId, [{ op: 'set', path: [UserField.sessionToken], value: newSessionToken() }]);
  return { status: 200, body: viewUser(updated, { self: true, master: caller.master, protectedFields: protectedUserFields(caller.app.config) }) };
}

/** DELETE /1.1/users/<id>: the user's own session or the master key; answers `{}`. */
export async function deleteUser(deps: AccountDeps, caller: Caller, userId: string): Promise<AccountResult> {
  if (!caller.master && !caller.app.config.settings.classPermissions._User.delete) {
    throw new HeraldError(ErrorCode.forbidden, 'Deleting users needs the master key in this app.', { status: 403 });
  }
  await writableUser(deps, caller, userId);
  const deleted = await deps.store.delete(caller.app.config.id, userClass, userId);
  if (!deleted) fail(ErrorCode.userNotFound, 'Could not find user.');
  return { status: 200, body: {} };
}
