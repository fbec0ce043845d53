import { appDisplayName } from '../config/schema.ts';
import { PreconditionFailedError } from '../core/errors.ts';
import type { StoredObject } from '../core/ports/object-store.ts';
import type { AccountDeps, AccountResult, AppRuntime, Caller } from './account-deps.ts';
import { LinkKind, linkPayload, linkStillValid, linkUrl, newLinkToken } from './account-links.ts';
import { userForEmailRequest } from './email-verification.ts';
import { passwordResetEmail } from './emails/password-reset-email.ts';
import { sendRequestedMail, throttleMail } from './mail-throttle.ts';
import { applyOwnerEntry } from './ownership-proof.ts';
import { hashPassword } from './passwords.ts';
import { UserField, userClass } from './user-fields.ts';

/** POST /1.1/requestPasswordReset: mails a single-use link to a form that sets a new password. */
export async function requestPasswordReset(deps: AccountDeps, caller: Caller, body: unknown): Promise<AccountResult> {
  const user = await userForEmailRequest(deps, caller, body);
  const app = caller.app;
  const email = String(user[UserField.email]);
  const release = await throttleMail(deps, app.config.id, 'reset', email);
  const ttlSeconds = app.config.settings.passwordResetTtlSeconds;
  const link = await issueResetLink(deps, app, user);
  const message = passwordResetEmail({ appName: appDisplayName(app.config), link, ttlMinutes: Math.round(ttlSeconds / 60) });
  await sendRequestedMail(release, () => app.mailer.send({ to: email, ...message }));
  return { status: 200, body: {} };
}

/**
 * Stores a reset link for the user's current email and answers its URL. It
 * works once, until the app's reset TTL, and only while the email and
 * password stay as they are.
 */
async function issueResetLink(deps: AccountDeps, app: AppRuntime, user: StoredObject): Promise<string> {
  const appId = app.config.id;
  const { token, secretHash } = newLinkToken(appId);
  const expiresAt = deps.clock.now() + app.config.settings.passwordResetTtlSeconds * 1000;
  await deps.store.putToken(appId, LinkKind.resetPassword.token, secretHash, linkPayload(user, String(user[UserField.email])), expiresAt);
  return linkUrl(deps.publicUrl, 'resetPassword', token);
}

/** The user a live reset link belongs to, without using the link up; null when it is not usable. */
export async function userForResetLink(deps: AccountDeps, app: AppRuntime, secretHash: string): Promise<StoredObject | null> {
  const appId = app.config.id;
  const payload = await deps.store.peekToken(appId, LinkKind.resetPassword.token, secretHash, deps.clock.now());
  const user = payload?.userId ? await deps.store.get(appId, userClass, payload.userId) : null;
  return user && payload && linkStillValid(user, payload) ? user : null;
}

/**
 * Uses a reset link: sets the password and issues a new session token, so that
 * every old session ends. The address owner enters the account here, so an
 * account that was not settled — its email unverified, or verified by a
 * verification link alone — passes to them (`ownerEntryOps`). Answers false
 * when the link is unknown, expired, used, or no longer matches the user's
 * email or password.
 */
export async function resetPassword(deps: AccountDeps, app: AppRuntime, secretHash: string, password: string): Promise<boolean> {
  const appId = app.config.id;
  const hash = await hashPassword(password);
  const payload = await deps.store.takeToken(appId, LinkKind.resetPassword.token, secretHash, deps.clock.now());
  if (!payload?.userId) return false;
  // The user may have been deleted since the link was sent: then nothing is updated.
  const user = await deps.store.get(appId, userClass, payload.userId);
  if (!user || !linkStillValid(user, payload)) return false;
  try {
    const { entry } = await applyOwnerEntry(deps, appId, user, 'email', { newPasswordHash: hash });
    deps.logger.info({ app: appId, userId: user.objectId, tookOver: entry.tookOver }, 'password reset through emailed link');
    return true;
  } catch (error) {
    if (error instanceof PreconditionFailedError) return false;
    throw error;
  }
}
