import { ErrorCode, fail } from '../../core/errors.ts';

/** Push record ids as both transports take them; a malformed one gets the answer of an unknown one (101). */
const objectIdPattern = /^[A-Za-z0-9]{1,64}$/;

/** An objectId or notification_id from a REST path or a gRPC message, or 101 `No <what> with this id.` */
export function requireObjectId(value: unknown, what: string): string {
  if (typeof value !== 'string' || !objectIdPattern.test(value)) fail(ErrorCode.objectNotFound, `No ${what} with this id.`);
  return value;
}

/** A scheduled push's id from a gRPC message (a positive integer), or 101 as REST answers for one that is not. */
export function requireScheduledId(value: unknown): number {
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value <= 0) fail(ErrorCode.objectNotFound, 'No scheduled push with this id.');
  return value;
}
