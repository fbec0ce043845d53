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

export interface OwnershipProof {
  /** The changes to apply atomically; they fail if the identifier changed since the user was read. */
  ops: FieldOp[];
  /** The identifier was unverified, so the prover took the account over. */
  tookOver: boolean;
  /** A password set before the proof was removed: the owner should choose one. */
  passwordRemoved: boolean;
}

/**
 * What proving an identifier does to the user holding it (docs/accounts.md,
 * "Who owns an account"). An unverified email or number is a claim, not
 * ownership: anyone may register one. When its owner proves it and it was
 * unverified, everything the proof did not establish stops working — every
 * session ends (new session token), third-party links and union-id markers
 * go, the password set before the proof goes (unless the proof itself sets
 * one: a reset link), the other identifier goes when it too is unproven, and
 * outstanding emailed links die. The account and its data stay with the owner.
 * When the identifier was already verified, a proof changes nothing else.
 */
export function ownershipProofOps(user: StoredObject, proven: ProvenIdentifier, options: { newPasswordHash?: string } = {}): OwnershipProof {
  // Atomic with what the proof was checked against: the identifier, and no credential change since.
  const ops: FieldOp[] = [
    { op: 'expect', path: [proven], value: user[proven] },
    { op: 'expect', path: [UserField.linkGeneration], value: user[UserField.linkGeneration] },
  ];
  const tookOver = user[verifiedFlag[proven]] !== true;
  let passwordRemoved = false;
  if (tookOver) {
    ops.push({ op: 'set', path: [verifiedFlag[proven]], value: true });
    ops.push({ op: 'delete', path: [UserField.authData] });
    for (const field of Object.keys(user)) if (unionIdFieldPattern.test(field)) ops.push({ op: 'delete', path: [field] });
    const other = otherIdentifier[proven];
    if (typeof user[other] === 'string' && user[verifiedFlag[other]] !== true) {
      ops.push({ op: 'delete', path: [other] }, { op: 'set', path: [verifiedFlag[other]], value: other === 'email' ? null : false });
    }
    if (options.newPasswordHash === undefined && typeof user[UserField.hashedPassword] === 'string') {
      ops.push({ op: 'delete', path: [UserField.hashedPassword] });
      passwordRemoved = true;
    }
  }
  if (options.newPasswordHash !== undefined) ops.push({ op: 'set', path: [UserField.hashedPassword], value: options.newPasswordHash });
  if (tookOver || options.newPasswordHash !== undefined) {
    ops.push({ op: 'set', path: [UserField.sessionToken], value: newSessionToken() }, newLinkGenerationOp());
  }
  return { ops, tookOver, passwordRemoved };
}

/**
 * Applies `ownershipProofOps` to the stored user and answers it as stored
 * now. When the identifier changed since the user was read, nothing is
 * written and `PreconditionFailedError` is thrown.
 */
export async function applyOwnershipProof(
  deps: AccountDeps,
  appId: string,
  user: StoredObject,
  proven: ProvenIdentifier,
  options: { newPasswordHash?: string } = {},
): Promise<{ user: StoredObject; proof: OwnershipProof }> {
  const proof = ownershipProofOps(user, proven, options);
  // Only the expect ops: the identifier was verified and nothing is set.
  if (proof.ops.every((op) => op.op === 'expect')) return { user, proof };
  return { user: await updateUser(deps, appId, user.objectId, proof.ops), proof };
}
