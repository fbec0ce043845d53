import { ErrorCode, fail } from '../core/errors.ts';

/** The ids REST takes in paths; a malformed one gets the answer of an unknown one (101), as there. */
const objectIdPattern = /^[A-Za-z0-9]{1,64}$/;

/** An objectId or notification_id from a request message, or 101 `No <what> with this id.` as REST answers. */
export function requireObjectId(value: unknown, what: string): string {
  if (typeof value !== 'string' || !objectIdPattern.test(value)) fail(ErrorCode.objectNotFound, `No ${what} with this id.`);
  return value;
}

/** A scheduled push's id (a positive integer), or 101 as REST answers for one that is not. */
export function requireScheduledId(value: unknown): number {
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value <= 0) fail(ErrorCode.objectNotFound, 'No scheduled push with this id.');
  return value;
}
