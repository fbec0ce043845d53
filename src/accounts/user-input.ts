import { ErrorCode, fail } from '../core/errors.ts';
import type { FieldOp } from '../core/ports/object-store.ts';
import { toFieldOp } from './field-ops.ts';
import { checkAcl, checkEmail, checkFieldName, checkMobilePhone, checkString } from './field-rules.ts';
import { UserField } from './user-fields.ts';

/** A validated write to a user, split into what needs special handling. */
export interface UserInput {
  ops: FieldOp[];
  /** New plain-text password, to be hashed by the caller. */
  password?: string;
  /** Present when the write sets (string) or removes (null) the email. */
  email?: string | null;
  mobilePhoneNumber?: string | null;
  username?: string;
  /** `authData` platforms to link (whole objects) and to unlink (names). */
  link?: unknown;
  unlink: string[];
}

const serviceFields = new Set(['objectId', 'createdAt', 'updatedAt', UserField.sessionToken]);
const masterOnlyFields = new Set<string>([UserField.emailVerified, UserField.mobilePhoneVerified]);

/**
 * Validates the fields of a registration or update body. Every problem is a
 * 4xx `HeraldError`, raised before anything is written.
 */
export function readUserInput(body: Record<string, unknown>, options: { master: boolean }): UserInput {
  const input: UserInput = { ops: [], unlink: [] };
  for (const [field, value] of Object.entries(body)) {
    if (field.startsWith('authData.')) {
      readUnlink(field, value, input);
      continue;
    }
    if (serviceFields.has(field)) fail(ErrorCode.invalidFieldName, `${field} is set by the service and cannot be written`);
    if (masterOnlyFields.has(field)) {
      if (!options.master) fail(ErrorCode.forbidden, `${field} can only be set with the master key`, 403);
      if (typeof value !== 'boolean') fail(ErrorCode.invalidType, `${field} must be a boolean`);
      input.ops.push({ op: 'set', path: [field], value });
      continue;
    }
    switch (field) {
      case 'password':
        input.password = readPassword(value);
        break;
      case UserField.username:
        input.username = readUsername(value);
        input.ops.push({ op: 'set', path: [field], value: input.username });
        break;
      case UserField.email:
        input.email = isDelete(value) ? null : checkEmail(value);
        input.ops.push(input.email === null ? { op: 'delete', path: [field] } : { op: 'set', path: [field], value: input.email });
        break;
      case UserField.mobilePhoneNumber:
        input.mobilePhoneNumber = isDelete(value) ? null : checkMobilePhone(value);
        input.ops.push(
          input.mobilePhoneNumber === null ? { op: 'delete', path: [field] } : { op: 'set', path: [field], value: input.mobilePhoneNumber },
        );
        break;
      case UserField.authData:
        input.link = value;
        break;
      case UserField.acl:
        input.ops.push({ op: 'set', path: [field], value: checkAcl(value) });
        break;
      default:
        checkFieldName(field);
        input.ops.push(toFieldOp([field], value));
    }
  }
  return input;
}

/** C0 and C1 controls, line and paragraph separators, and bidirectional embeddings, overrides and isolates. */
const controlCharacters = /[\p{Cc}\u2028\u2029\u202a-\u202e\u2066-\u2069]/u;

export function readUsername(value: unknown): string {
  if (value === undefined || value === null) fail(ErrorCode.usernameMissing, 'Username is missing or empty.');
  const username = checkString('username', value);
  if (username.trim() === '') fail(ErrorCode.usernameBlank, 'Username must not be blank.');
  if (username.length > 256) fail(ErrorCode.internal, 'Username is longer than 256 characters.');
  // Usernames are shown to other people (pages, lists): no line breaks or bidi tricks.
  if (controlCharacters.test(username)) fail(ErrorCode.internal, 'Username must not contain control characters, line breaks or text-direction marks.');
  return username;
}

export function readPassword(value: unknown): string {
  if (value === undefined || value === null) fail(ErrorCode.passwordMissing, 'Password is missing or empty.');
  const password = checkString('password', value);
  if (password.length === 0) fail(ErrorCode.passwordBlank, 'Password must not be blank.');
  // argon2 handles long inputs, but an unbounded one is a cheap way to burn CPU.
  if (password.length > 1024) fail(ErrorCode.internal, 'Password is longer than 1024 characters.');
  return password;
}

function isDelete(value: unknown): boolean {
  return value !== null && typeof value === 'object' && (value as Record<string, unknown>).__op === 'Delete';
}

function readUnlink(field: string, value: unknown, input: UserInput): void {
  const platform = field.slice('authData.'.length);
  if (!/^[A-Za-z0-9_]{1,64}$/.test(platform)) fail(ErrorCode.invalidFieldName, `invalid field name: ${field.slice(0, 80)}`);
  if (!isDelete(value)) fail(ErrorCode.invalidFieldName, `${field} only accepts {"__op": "Delete"}; link a platform with {"authData": {...}}`);
  input.unlink.push(platform);
}
