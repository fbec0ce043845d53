import { checkAcl } from '../accounts/field-rules.ts';
import { isoTime } from '../core/clock.ts';
import { ErrorCode, fail } from '../core/errors.ts';
import { isJsonObject } from '../query/json-value.ts';

/** What every stored object carries, read from an exported row. */
export interface RowIdentity {
  objectId: string;
  createdAt: string;
  updatedAt: string;
}

/** The ids Herald's routes accept; an object with another id could never be read back. */
const objectIdPattern = /^[A-Za-z0-9]{1,64}$/;

/**
 * The objectId and the two timestamps of a row, kept as exported. The
 * export writes `createdAt` and `updatedAt` as ISO strings (other dates as
 * `{"__type": "Date", "iso": …}`); both forms are read, and stored the way
 * Herald writes its own (ISO 8601 UTC with milliseconds). A row without
 * `updatedAt` takes its `createdAt`.
 */
export function readRowIdentity(row: Record<string, unknown>): RowIdentity {
  const objectId = row.objectId;
  if (objectId === undefined || objectId === null) fail(ErrorCode.missingObjectId, 'the row has no objectId');
  if (typeof objectId !== 'string' || !objectIdPattern.test(objectId)) {
    fail(ErrorCode.invalidType, `objectId must be 1 to 64 letters and digits, not ${JSON.stringify(objectId)?.slice(0, 80)}`);
  }
  const createdAt = readTime(row.createdAt, 'createdAt');
  if (createdAt === undefined) fail(ErrorCode.missingRequiredKey, 'the row has no createdAt');
  const updatedAt = readTime(row.updatedAt, 'updatedAt') ?? createdAt;
  return { objectId, createdAt, updatedAt };
}

function readTime(value: unknown, field: string): string | undefined {
  if (value === undefined || value === null) return undefined;
  const text = typeof value === 'string' ? value : isJsonObject(value) && value.__type === 'Date' ? value.iso : undefined;
  const time = typeof text === 'string' ? Date.parse(text) : Number.NaN;
  if (Number.isNaN(time)) fail(ErrorCode.invalidType, `${field} must be an ISO date or {"__type": "Date", "iso": …}, not ${JSON.stringify(value)?.slice(0, 80)}`);
  return isoTime(time);
}

/**
 * An exported ACL as Herald stores it: permissions set to `false` (which
 * grant nothing) are dropped, the rest must pass the API's own check (123).
 */
export function readExportedAcl(value: unknown): Record<string, { read?: true; write?: true }> {
  if (!isJsonObject(value)) return checkAcl(value);
  const granted: Record<string, Record<string, unknown>> = {};
  for (const [principal, permissions] of Object.entries(value)) {
    if (!isJsonObject(permissions)) return checkAcl(value);
    granted[principal] = Object.fromEntries(Object.entries(permissions).filter(([, allowed]) => allowed !== false));
  }
  return checkAcl(granted);
}

/** Refuses values an API write would take as an operation (`{"__op": …}`): an export holds values only. */
export function rejectOperations(row: Record<string, unknown>): void {
  for (const [field, value] of Object.entries(row)) {
    if (isJsonObject(value) && '__op' in value) fail(ErrorCode.invalidType, `${field} holds an {"__op": …} operation, not a value`);
  }
}
