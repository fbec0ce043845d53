import { digest, newSecret } from '../core/ids.ts';
import type { FieldOp, StoredObject } from '../core/ports/object-store.ts';
import { UserField } from './user-fields.ts';

/** Kinds of emailed single-use links, and where they are served. */
export const LinkKind = {
  verifyEmail: { token: 'verify-email', path: 'verifyEmail' },
  resetPassword: { token: 'reset-password', path: 'resetPassword' },
} as const;

export type LinkKindName = keyof typeof LinkKind;

/**
 * The token in a link names its app, so that a page opened from an email finds
 * the app without headers: `<appId>.<secret>`. Only the secret's digest is stored.
 */
export function newLinkToken(appId: string): { token: string; secretHash: string } {
  const secret = newSecret();
  return { token: `${appId}.${secret}`, secretHash: digest(secret) };
}

export function parseLinkToken(token: string): { appId: string; secretHash: string } | null {
  const match = /^([A-Za-z0-9_-]{1,64})\.([a-z2-7]{32})$/.exec(token);
  if (!match) return null;
  return { appId: match[1] as string, secretHash: digest(match[2] as string) };
}

export function linkUrl(publicUrl: string, kind: LinkKindName, token: string): string {
  return `${publicUrl}/1.1/${LinkKind[kind].path}/${token}`;
}

/** What a stored link remembers of the user it was sent to. */
export interface LinkPayload {
  userId: string;
  /** The address the link was sent to. */
  email: string;
  /** The user's link generation when it was sent. */
  generation: string;
  [key: string]: string;
}

export function linkPayload(user: StoredObject, email: string): LinkPayload {
  return { userId: user.objectId, email, generation: linkGenerationOf(user) };
}

/**
 * A link works only for the address it was sent to, and only until the
 * user's email or password changes (which starts a new link generation).
 */
export function linkStillValid(user: StoredObject, payload: Readonly<Record<string, string>>): boolean {
  return user[UserField.email] === payload.email && linkGenerationOf(user) === (payload.generation ?? '');
}

/** Revokes every outstanding emailed link of a user; add to the ops that change the email or password. */
export function newLinkGenerationOp(): FieldOp {
  return { op: 'set', path: [UserField.linkGeneration], value: newSecret() };
}

function linkGenerationOf(user: StoredObject): string {
  const generation = user[UserField.linkGeneration];
  return typeof generation === 'string' ? generation : '';
}
