import { digest, newSecret } from '../core/ids.ts';

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
