import { ErrorCode, fail } from '../../core/errors.ts';
import type { KeyRule } from './platform-rules.ts';

const lowercaseUuid = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const digits = /^[0-9]+$/;

/**
 * Throws unless `value`, found at `path` (e.g. `authData.weibo.uid`), meets `rule`:
 * 113 when it is blank (an empty string identifies nobody), 111 otherwise.
 */
export function checkKey(value: unknown, rule: KeyRule, path: string): void {
  switch (rule.type) {
    case 'string':
      if (typeof value !== 'string') fail(ErrorCode.invalidType, `${path} must be a string`);
      if (value === '') fail(ErrorCode.missingRequiredKey, `${path} must not be empty`);
      return;
    case 'seconds':
      if (!isSeconds(value)) fail(ErrorCode.invalidType, `${path} must be a number of seconds`);
      return;
    case 'literal':
      if (value !== rule.value) fail(ErrorCode.invalidType, `${path} must be '${rule.value}'`);
      return;
    case 'uuid':
      if (typeof value !== 'string' || !lowercaseUuid.test(value)) {
        fail(ErrorCode.invalidType, `${path} must be a UUID in lowercase hexadecimal digits`);
      }
      return;
  }
}

function isSeconds(value: unknown): boolean {
  return (typeof value === 'number' && Number.isFinite(value) && value >= 0) || (typeof value === 'string' && digits.test(value));
}

/** Like `checkKey` with a `string` rule, answering the string. */
export function requireString(value: unknown, path: string): string {
  checkKey(value, { type: 'string' }, path);
  return value as string;
}

/** The value of `object`'s own key `key`; inherited properties never count. */
export function ownValue(object: Readonly<Record<string, unknown>>, key: string): unknown {
  return Object.hasOwn(object, key) ? object[key] : undefined;
}

/** Narrows `value` to a plain JSON object, or throws 111 naming `path`. */
export function requireObject(value: unknown, path: string): Readonly<Record<string, unknown>> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    fail(ErrorCode.invalidType, `${path} must be an object`);
  }
  return value as Readonly<Record<string, unknown>>;
}
