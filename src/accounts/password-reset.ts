import { appDisplayName } from '../config/schema.ts';
import { isoTime } from '../core/clock.ts';
import type { FieldOp, StoredObject } from '../core/ports/object-store.ts';
import type { AccountDeps, AccountResult, AppRuntime, Caller } from './account-deps.ts';
import { LinkKind, linkUrl, newLinkToken } from './account-links.ts';
import { userForEmailRequest } from './email-verification.ts';
import { passwordResetEmail } from './emails/password-reset-email.ts';
import { sendRequestedMail, throttleMail } from './mail-throttle.ts';
import { hashPassword } from './passwords.ts';
import { newSessionToken } from './sessions.ts';
import { UserField, userClass } from './user-fields.ts';
import { usernameOf } from './user-view.ts';

/** POST /1.1/requestPasswordReset: mails a single-use link to a form that sets a new password. */
export async function requestPasswordReset(deps: AccountDeps, caller: Caller, body: unknown): Promise<AccountResult> {
  const user = await userForEmailRequest(deps, caller, body);
  const app = caller.app;
  const appId = app.config.id;
  const email = String(user[UserField.email]);
  const release = await throttleMail(deps, appId, 'reset', email);
  const ttlSeconds = app.config.settings.passwordResetTtlSeconds;
  const { token, secretHash } = newLinkToken(appId);
  await deps.store.putToken(appId, LinkKind.resetPassword.token, secretHash, { userId: user.objectId, email }, deps.clock.now() + ttlSeconds * 1000);
  const message = passwordResetEmail({
    appName: appDisplayName(app.config),
    username: usernameOf(user),
    link: linkUrl(deps.publicUrl, 'resetPassword', token),
    ttlMinutes: Math.round(ttlSeconds / 60),
  });
  await sendRequestedMail(release, () => app.mailer.send({ to: email, ...message }));
  return { status: 200, body: {} };
}

/** The user a live reset link belongs to, without using the link up; null when it is not usable. */
export async function userForResetLink(deps: AccountDeps, app: AppRuntime, secretHash: string): Promise<StoredObject | null> {
  const appId = app.config.id;
  const payload = await deps.store.peekToken(appId, LinkKind.resetPassword.token, secretHash, deps.clock.now());
  return payload?.userId ? deps.store.get(appId, userClass, payload.userId) : null;
}

/**
 * Uses a reset link: sets the password and issues a new session token, so that
 * every old session ends. Answers false when the link is unknown, expired or used.
 */
export async function resetPassword(deps: AccountDeps, app: AppRuntime, secretHash: string, password: string): Promise<boolean> {
  const appId = app.config.id;
  const hash = await hashPassword(password);
  const payload = await deps.store.takeToken(appId, LinkKind.resetPassword.token, secretHash, deps.clock.now());
  if (!payload?.userId) return false;
  const ops: FieldOp[] = [
    { op: 'set', path: [UserField.hashedPassword], value: hash },
    { op: 'set', path: [UserField.sessionToken], value: newSessionToken() },
  ];
  // The user may have been deleted since the link was sent: then nothing is updated.
  const updated = await deps.store.update(appId, userClass, payload.userId, ops, { updatedAt: isoTime(deps.clock.now()) });
  if (updated) deps.logger.info({ app: appId, userId: updated.objectId }, 'password reset through emailed link');
  return updated !== null;
}
