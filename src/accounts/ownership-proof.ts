import type { FieldOp, StoredObject } from '../core/ports/object-store.ts';
import type { AccountDeps } from './account-deps.ts';
import { newLinkGenerationOp } from './account-links.ts';
import { newSessionToken } from './sessions.ts';
import { UserField, unionIdFieldPattern } from './user-fields.ts';
import { updateUser } from './user-records.ts';

/** An identifier a person can prove they own: by a link mailed to it, or by an SMS code sent to it. */
export type ProvenIdentifier = 'email' | 'mobilePhoneNumber';

const verifiedFlag = {
  email: UserField.emailVerified,
  mobilePhoneNumber: UserField.mobilePhoneVerified,
} as const;

const otherIdentifier = { email: 'mobilePhoneNumber', mobilePhoneNumber: 'email' } as const;

/**
 * Whether the account's credentials are known to be its identifier owner's:
 * the identifier is verified, and (for an email) not by a verification link
 * alone. A verification link only verifies, so an address verified that way
 * still hands the account to its owner the first time they enter through it.
 */
export function ownerSettled(user: StoredObject, identifier: ProvenIdentifier): boolean {
  if (user[verifiedFlag[identifier]] !== true) return false;
  return identifier !== 'email' || user[UserField.emailVerifiedByLink] !== true;
}

export interface OwnerEntry {
  /** The changes to apply atomically; they fail if the identifier or a credential changed since the user was read. */
  ops: FieldOp[];
  /** The account was not settled, so the prover took it over. */
  tookOver: boolean;
}

/**
 * What it does to a user when the owner of one of its identifiers enters the
 * account through it (docs/accounts.md, "Who owns an account"): an SMS
 * sign-in, or a password set through a reset link. An unverified email or
 * number is a claim, not ownership: anyone may register one. When the
 * account was not settled (`ownerSettled`), everything the entry did not
 * establish stops working — every session ends (new session token),
 * third-party links and union-id markers go, the password set before goes
 * (a reset link sets the new one instead), the other identifier goes when it
 * is unverified, and outstanding emailed links die. The account and its data
 * stay with the owner. Once settled, an entry ends nothing; a reset still
 * sets its password, ends every session and kills outstanding links.
 */
export function ownerEntryOps(user: StoredObject, proven: ProvenIdentifier, options: { newPasswordHash?: string } = {}): OwnerEntry {
  // Atomic with what the proof was checked against: the identifier, and no credential change since.
  const ops: FieldOp[] = [
    { op: 'expect', path: [proven], value: user[proven] },
    { op: 'expect', path: [UserField.linkGeneration], value: user[UserField.linkGeneration] },
  ];
  const tookOver = !ownerSettled(user, proven);
  if (tookOver) {
    ops.push({ op: 'set', path: [verifiedFlag[proven]], value: true });
    if (proven === 'email') ops.push({ op: 'delete', path: [UserField.emailVerifiedByLink] });
    ops.push({ op: 'delete', path: [UserField.authData] });
    for (const field of Object.keys(user)) if (unionIdFieldPattern.test(field)) ops.push({ op: 'delete', path: [field] });
    const other = otherIdentifier[proven];
    if (typeof user[other] === 'string' && user[verifiedFlag[other]] !== true) {
      ops.push({ op: 'delete', path: [other] }, { op: 'set', path: [verifiedFlag[other]], value: other === 'email' ? null : false });
      if (other === 'email') ops.push({ op: 'delete', path: [UserField.emailVerifiedByLink] });
    }
    if (options.newPasswordHash === undefined && typeof user[UserField.hashedPassword] === 'string') {
      ops.push({ op: 'delete', path: [UserField.hashedPassword] });
    }
  }
  if (options.newPasswordHash !== undefined) ops.push({ op: 'set', path: [UserField.hashedPassword], value: options.newPasswordHash });
  if (tookOver || options.newPasswordHash !== undefined) {
    ops.push({ op: 'set', path: [UserField.sessionToken], value: newSessionToken() }, newLinkGenerationOp());
  }
  return { ops, tookOver };
}

/**
 * Applies `ownerEntryOps` to the stored user and answers it as stored now.
 * When the identifier or a credential changed since the user was read,
 * nothing is written and `PreconditionFailedError` is thrown.
 */
export async function applyOwnerEntry(
  deps: AccountDeps,
  appId: string,
  user: StoredObject,
  proven: ProvenIdentifier,
  options: { newPasswordHash?: string } = {},
): Promise<{ user: StoredObject; entry: OwnerEntry }> {
  const entry = ownerEntryOps(user, proven, options);
  // Only the expect ops: the account was settled and nothing is set.
  if (entry.ops.every((op) => op.op === 'expect')) return { user, entry };
  return { user: await updateUser(deps, appId, user.objectId, entry.ops), entry };
}
