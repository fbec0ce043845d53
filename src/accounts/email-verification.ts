import { appDisplayName } from '../config/schema.ts';
import { ErrorCode, PreconditionFailedError, fail } from '../core/errors.ts';
import type { FieldOp, StoredObject } from '../core/ports/object-store.ts';
import type { AccountDeps, AccountResult, AppRuntime, Caller } from './account-deps.ts';
import { LinkKind, linkPayload, linkStillValid, linkUrl, newLinkToken } from './account-links.ts';
import { verificationEmail } from './emails/verification-email.ts';
import { checkEmail, requireObject } from './field-rules.ts';
import { sendRequestedMail, throttleMail } from './mail-throttle.ts';
import { UserField, userClass } from './user-fields.ts';
import { updateUser } from './user-records.ts';

/** Verification links live one week (SPEC.md). */
export const verifyLinkTtlMs = 7 * 24 * 3600 * 1000;

/**
 * Creates a verification link for the user's current email and mails it after
 * the response. A link is bound to the address it was sent to, so changing the
 * email makes older links useless.
 */
export async function sendVerificationLink(deps: AccountDeps, app: AppRuntime, user: StoredObject, delivery: MailDelivery = 'background'): Promise<void> {
  const email = user[UserField.email];
  if (typeof email !== 'string') return;
  const appId = app.config.id;
  const { token, secretHash } = newLinkToken(appId);
  await deps.store.putToken(appId, LinkKind.verifyEmail.token, secretHash, linkPayload(user, email), deps.clock.now() + verifyLinkTtlMs);
  const message = verificationEmail({
    appName: appDisplayName(app.config),
    email,
    link: linkUrl(deps.publicUrl, 'verifyEmail', token),
  });
  const send = () => app.mailer.send({ to: email, ...message });
  if (delivery === 'background') deps.background.run('verification email', send);
  else await send();
}

/** Mail sent as a side effect goes out after the answer; mail the caller asked for is awaited. */
export type MailDelivery = 'background' | 'await';

/** POST /1.1/requestEmailVerify: a new link for an existing address. */
export async function requestEmailVerify(deps: AccountDeps, caller: Caller, body: unknown): Promise<AccountResult> {
  const user = await userForEmailRequest(deps, caller, body);
  const release = await throttleMail(deps, caller.app.config.id, 'verify', String(user[UserField.email]));
  await sendRequestedMail(release, () => sendVerificationLink(deps, caller.app, user, 'await'));
  return { status: 200, body: {} };
}

/** Shared by the email-request endpoints: 204 missing, 125 malformed, 205 unknown. */
export async function userForEmailRequest(deps: AccountDeps, caller: Caller, body: unknown): Promise<StoredObject> {
  const fields = requireObject(body);
  if (fields.email === undefined || fields.email === null || fields.email === '') fail(ErrorCode.emailMissing, 'The email address is missing.');
  const email = checkEmail(fields.email);
  const user = await deps.store.findByUnique(caller.app.config.id, userClass, { field: UserField.email, value: email });
  if (!user) fail(ErrorCode.emailNotFound, 'Could not find a user with that email address.');
  return user;
}

export type VerifyOutcome = { ok: true; email: string } | { ok: false };

/**
 * Opens a verification link; each link works once, within a week, for the
 * address it was sent to and until the email or password changes. A link
 * lands nobody in the account, so it only verifies: no session, password or
 * link of the account changes. An address it verifies stays marked as
 * verified by link (`UserField.emailVerifiedByLink`), so that the first
 * password reset through it still hands the account to the address owner
 * (`ownerEntryOps`). The check that the address is still the one the link was
 * sent to is part of the same atomic update.
 */
export async function verifyEmail(deps: AccountDeps, appId: string, secretHash: string): Promise<VerifyOutcome> {
  const payload = await deps.store.takeToken(appId, LinkKind.verifyEmail.token, secretHash, deps.clock.now());
  if (!payload?.userId || !payload.email) return { ok: false };
  const user = await deps.store.get(appId, userClass, payload.userId);
  if (!user || !linkStillValid(user, payload)) return { ok: false };
  // Already verified: nothing to record.
  if (user[UserField.emailVerified] === true) return { ok: true, email: payload.email };
  const ops: FieldOp[] = [
    { op: 'expect', path: [UserField.email], value: user[UserField.email] },
    { op: 'expect', path: [UserField.linkGeneration], value: user[UserField.linkGeneration] },
    { op: 'set', path: [UserField.emailVerified], value: true },
    { op: 'set', path: [UserField.emailVerifiedByLink], value: true },
  ];
  try {
    await updateUser(deps, appId, user.objectId, ops);
    return { ok: true, email: payload.email };
  } catch (error) {
    // The address or a credential changed between reading the user and verifying it.
    if (error instanceof PreconditionFailedError) return { ok: false };
    throw error;
  }
}
