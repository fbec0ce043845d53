import { ErrorCode, fail } from '../../core/errors.ts';
import { isJsonObject } from '../../query/json-value.ts';

/**
 * Checks shared by the push readers. The convention: a value of the wrong
 * JSON type answers 111; a value of the right type outside what is allowed
 * (a range, a set of names, a length) answers 1.
 */

export type Params = Readonly<Record<string, unknown>>;

/** The body of a push request: a JSON object, else 107. */
export function readBody(body: unknown): Params {
  if (!isJsonObject(body)) fail(ErrorCode.invalidJson, 'the request body must be a JSON object');
  return body;
}

/** A parameter's value; JSON null reads as not given, like an absent key. */
export function param(params: Params, name: string): unknown {
  const value = Object.hasOwn(params, name) ? params[name] : undefined;
  return value === null ? undefined : value;
}

/** An optional string parameter; an empty string counts as not given. */
export function optionalString(params: Params, name: string): string | null {
  const value = param(params, name);
  if (value === undefined) return null;
  if (typeof value !== 'string') fail(ErrorCode.invalidType, `${name} must be a string`);
  return value === '' ? null : value;
}

const identifierPattern = /^[A-Za-z0-9]{1,16}$/;

/** `notification_id` and `req_id`: 1 to 16 letters and digits. */
export function optionalIdentifier(params: Params, name: string): string | null {
  const value = param(params, name);
  if (value === undefined) return null;
  if (typeof value !== 'string') fail(ErrorCode.invalidType, `${name} must be a string`);
  if (!identifierPattern.test(value)) fail(ErrorCode.internal, `${name} must be 1 to 16 letters and digits`);
  return value;
}

const decimalPattern = /^\d{1,15}(\.\d{1,9})?$/;

/**
 * An optional non-negative number, given as a JSON number or as a decimal
 * string (the hosted service's own examples quote `expiration_interval`).
 */
export function optionalNumber(params: Params, name: string): number | null {
  const value = param(params, name);
  if (value === undefined) return null;
  if (typeof value === 'string') {
    if (!decimalPattern.test(value)) fail(ErrorCode.internal, `${name} must be a non-negative number`);
    return Number(value);
  }
  if (typeof value !== 'number') fail(ErrorCode.invalidType, `${name} must be a number`);
  if (!Number.isFinite(value) || value < 0) fail(ErrorCode.internal, `${name} must be a non-negative number`);
  return value;
}

/**
 * A time parameter: an ISO 8601 string with a time zone (`Z` or an offset),
 * or the encoded form `{"__type": "Date", "iso": …}`. Answers ms since epoch.
 */
export function optionalTime(params: Params, name: string): number | null {
  const value = param(params, name);
  if (value === undefined) return null;
  let text: unknown = value;
  if (isJsonObject(value)) {
    if (value.__type !== 'Date') fail(ErrorCode.invalidType, `${name} must be an ISO 8601 time or a Date`);
    text = value.iso;
  }
  if (typeof text !== 'string') fail(ErrorCode.invalidType, `${name} must be an ISO 8601 time or a Date`);
  const time = parseIsoTime(text);
  if (time === null) fail(ErrorCode.internal, `${name} must be an ISO 8601 time with a time zone, such as 2026-05-01T08:00:00.000Z`);
  return time;
}

const isoPattern = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?(Z|([+-])(\d{2}):?(\d{2}))$/;

/**
 * Parses `YYYY-MM-DDTHH:MM[:SS[.fff]](Z|±HH:MM)`. Unlike `Date.parse` it
 * refuses impossible dates (February 30th) and times without a zone, whose
 * meaning would depend on the server's local time.
 */
export function parseIsoTime(text: string): number | null {
  const match = isoPattern.exec(text);
  if (match === null) return null;
  const [year, month, day, hour, minute, second] = [1, 2, 3, 4, 5, 6].map((index) => Number(match[index] ?? '0')) as [
    number,
    number,
    number,
    number,
    number,
    number,
  ];
  const millis = Number((match[7] ?? '').padEnd(3, '0').slice(0, 3));
  if (month < 1 || month > 12 || hour > 23 || minute > 59 || second > 59) return null;
  const local = Date.UTC(year, month - 1, day, hour, minute, second, millis);
  if (new Date(local).getUTCDate() !== day) return null;
  if (match[8] === 'Z') return local;
  const offsetHours = Number(match[10]);
  const offsetMinutes = Number(match[11]);
  if (offsetHours > 23 || offsetMinutes > 59) return null;
  const offset = (offsetHours * 60 + offsetMinutes) * 60_000;
  return match[9] === '+' ? local - offset : local + offset;
}
