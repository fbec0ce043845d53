import { defaultUserAcl } from '../accounts/field-rules.ts';
import { encodeHostedHash } from '../accounts/legacy-password.ts';
import { UserField, unionIdFieldPattern } from '../accounts/user-fields.ts';
import { readUserInput } from '../accounts/user-input.ts';
import { ErrorCode, fail } from '../core/errors.ts';
import type { StoredObject } from '../core/ports/object-store.ts';
import { applyOps } from '../query/apply-ops.ts';
import { readExportedAuthData, readUnionMarker } from './hosted-auth-data.ts';
import { readExportedAcl, readRowIdentity, rejectOperations } from './hosted-values.ts';

export interface UserRowOptions {
  /** The session token of a user exported without one, as a sign-up gives. */
  newSessionToken: () => string;
}

/** Fields read here rather than by the API's rules for a user write. */
const handledFields = new Set(['objectId', 'createdAt', 'updatedAt', 'password', 'salt', UserField.sessionToken, UserField.authData, UserField.acl]);
/** Fields the export may hold as null where Herald leaves them out. */
const nullableFields: ReadonlySet<string> = new Set([UserField.username, UserField.email, UserField.mobilePhoneNumber, UserField.emailVerified, UserField.mobilePhoneVerified]);
/** base64 of a 64-byte SHA-512 digest. */
const hostedHashPattern = /^[A-Za-z0-9+/]{86}==$/;

/**
 * An exported `_User` row as Herald stores a user. Its fields pass the API's
 * own checks for a write with the master key (username, email, mobile
 * number, field names, ACL), so an imported user is one a sign-up could
 * have made; objectId, timestamps, ACL, authData, `emailVerified`,
 * `mobilePhoneVerified` and custom fields are kept. The exported password
 * hash and salt become the stored `$hosted-sha512$` hash that login checks
 * and replaces with argon2id; the session token is kept, so users stay
 * logged in. A user without an ACL gets a sign-up's default. Throws a
 * HeraldError naming the first problem.
 */
export function readUserRow(row: Record<string, unknown>, options: UserRowOptions): StoredObject {
  rejectOperations(row);
  const identity = readRowIdentity(row);
  const fields: Record<string, unknown> = {};
  const markers: Record<string, { uid: string }> = {};
  for (const [field, value] of Object.entries(row)) {
    if (handledFields.has(field) || (value === null && nullableFields.has(field))) continue;
    if (unionIdFieldPattern.test(field)) markers[field] = readUnionMarker(field, value);
    else fields[field] = value;
  }
  const user = applyOps({ ...identity }, readUserInput(fields, { master: true }).ops);
  user[UserField.acl] = row.ACL === undefined || row.ACL === null ? defaultUserAcl(identity.objectId) : readExportedAcl(row.ACL);
  if (row.authData !== undefined && row.authData !== null) {
    const { authData, unionMarkers } = readExportedAuthData(row.authData);
    if (Object.keys(authData).length > 0) user[UserField.authData] = authData;
    for (const [field, marker] of Object.entries(unionMarkers)) markers[field] ??= marker;
  }
  Object.assign(user, markers);
  const hash = readPasswordHash(row.password, row.salt);
  if (hash !== null) user[UserField.hashedPassword] = hash;
  user[UserField.sessionToken] = readSessionToken(row.sessionToken) ?? options.newSessionToken();
  return user;
}

/** The stored form of the exported hash, or null for a user without a password (third-party or SMS login only). */
function readPasswordHash(password: unknown, salt: unknown): string | null {
  if (password === undefined || password === null || password === '') return null;
  if (typeof password !== 'string' || !hostedHashPattern.test(password)) {
    fail(ErrorCode.invalidType, "password must be the hosted service's hash: base64 of a SHA-512 digest (88 characters)");
  }
  if (typeof salt !== 'string' || salt === '') fail(ErrorCode.missingRequiredKey, 'the row has a password hash but no salt, without which it cannot be checked');
  return encodeHostedHash(salt, password);
}

function readSessionToken(value: unknown): string | null {
  if (value === undefined || value === null || value === '') return null;
  if (typeof value !== 'string') fail(ErrorCode.invalidType, 'sessionToken must be a string');
  return value;
}
