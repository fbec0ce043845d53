import { ErrorCode, fail } from '../core/errors.ts';

/** The body of a write must be a JSON object. */
export function requireObject(body: unknown, what = 'request body'): Record<string, unknown> {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) {
    fail(ErrorCode.invalidJson, `${what} must be a JSON object`);
  }
  return body as Record<string, unknown>;
}

/** Client-supplied field names: not reserved (`_` prefix), no `$` or `.`. */
export function checkFieldName(name: string): void {
  if (name.length === 0 || name.length > 128) fail(ErrorCode.invalidFieldName, `invalid field name: "${name.slice(0, 40)}"`);
  if (name.startsWith('_')) fail(ErrorCode.invalidFieldName, `field names starting with _ are reserved: ${name}`);
  if (name.includes('$') || name.includes('.')) fail(ErrorCode.invalidFieldName, `invalid field name: ${name}`);
}

export function checkString(name: string, value: unknown): string {
  if (typeof value !== 'string') fail(ErrorCode.invalidType, `${name} must be a string`);
  return value;
}

export const emailPattern = /^[^\s@"<>()[\],;:\\]+@[^\s@"<>()[\],;:\\]+\.[^\s@"<>()[\],;:\\.]{2,}$/;

export function checkEmail(value: unknown): string {
  const email = checkString('email', value);
  if (email.length > 254 || !emailPattern.test(email)) fail(ErrorCode.invalidEmail, `invalid email address: ${email.slice(0, 80)}`);
  return email;
}

/** Numbers with an optional leading +, 5 to 20 digits (E.164 or national form). */
export const mobilePattern = /^\+?[0-9]{5,20}$/;

export function checkMobilePhone(value: unknown): string {
  const number = checkString('mobilePhoneNumber', value);
  if (!mobilePattern.test(number)) fail(ErrorCode.invalidMobilePhone, `invalid mobile phone number: ${number.slice(0, 40)}`);
  return number;
}

const aclPrincipal = /^(\*|[A-Za-z0-9]{1,64}|role:[A-Za-z0-9_ -]{1,64})$/;

/**
 * An ACL is `{principal: {read?: true, write?: true}}` where the principal is a
 * user objectId or `*`. Anything else is refused with 123.
 */
export function checkAcl(value: unknown): Record<string, { read?: true; write?: true }> {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) fail(ErrorCode.invalidAcl, 'ACL must be an object');
  const acl: Record<string, { read?: true; write?: true }> = {};
  for (const [principal, permissions] of Object.entries(value)) {
    if (!aclPrincipal.test(principal)) fail(ErrorCode.invalidAcl, `invalid ACL principal: ${principal.slice(0, 40)}`);
    if (permissions === null || typeof permissions !== 'object' || Array.isArray(permissions)) {
      fail(ErrorCode.invalidAcl, `ACL entry for ${principal} must be an object`);
    }
    const entry: { read?: true; write?: true } = {};
    for (const [permission, granted] of Object.entries(permissions as Record<string, unknown>)) {
      if (permission !== 'read' && permission !== 'write') fail(ErrorCode.invalidAcl, `unknown ACL permission: ${permission.slice(0, 40)}`);
      if (granted !== true) fail(ErrorCode.invalidAcl, `ACL permission values must be true (${principal}.${permission})`);
      entry[permission] = true;
    }
    acl[principal] = entry;
  }
  return acl;
}

/** Default ACL of a new user (SPEC-NOTES.md): public read, the user reads and writes. */
export function defaultUserAcl(userId: string): Record<string, { read?: true; write?: true }> {
  return { '*': { read: true }, [userId]: { read: true, write: true } };
}

type Acl = Record<string, { read?: boolean; write?: boolean }>;

/** Whether the ACL of an object lets a principal (user id, or none) do something. */
export function aclAllows(aclValue: unknown, userId: string | null, permission: 'read' | 'write'): boolean {
  if (aclValue === undefined || aclValue === null) return true;
  const acl = aclValue as Acl;
  if (acl['*']?.[permission] === true) return true;
  return userId !== null && acl[userId]?.[permission] === true;
}
