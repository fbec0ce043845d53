import { isJsonObject, jsonEqual } from './json-value.ts';

/**
 * A stored or query value classified by kind, with the encoded forms of the
 * wire (`{__type: "Date" | "Pointer" | "GeoPoint"}`) decoded.
 */
export type TypedValue =
  | { kind: 'missing' }
  | { kind: 'null' }
  | { kind: 'boolean'; value: boolean }
  | { kind: 'number'; value: number }
  | { kind: 'string'; value: string }
  | { kind: 'date'; value: number }
  | { kind: 'pointer'; className: string | undefined; objectId: string }
  | { kind: 'geoPoint'; latitude: number; longitude: number }
  | { kind: 'array'; value: unknown[] }
  | { kind: 'object'; value: Record<string, unknown> };

/** Fields the service stores as ISO strings but clients query as dates. */
const timestampFields = new Set(['createdAt', 'updatedAt']);

/** Whether a path names `createdAt` or `updatedAt`, whose strings are times. */
export function isTimestampPath(path: readonly string[]): boolean {
  return path.length === 1 && timestampFields.has(path[0] ?? '');
}

/** Classifies a JSON value; with `timestamp`, ISO strings count as dates. */
export function typedValue(value: unknown, timestamp = false): TypedValue {
  if (value === undefined) return { kind: 'missing' };
  if (value === null) return { kind: 'null' };
  if (typeof value === 'boolean') return { kind: 'boolean', value };
  if (typeof value === 'number') return { kind: 'number', value };
  if (typeof value === 'string') {
    const time = timestamp ? Date.parse(value) : Number.NaN;
    return Number.isNaN(time) ? { kind: 'string', value } : { kind: 'date', value: time };
  }
  if (Array.isArray(value)) return { kind: 'array', value };
  if (!isJsonObject(value)) return { kind: 'missing' };
  const decoded = decodeEncoded(value);
  return decoded ?? { kind: 'object', value };
}

function decodeEncoded(value: Record<string, unknown>): TypedValue | null {
  switch (value.__type) {
    case 'Date': {
      const time = typeof value.iso === 'string' ? Date.parse(value.iso) : Number.NaN;
      return Number.isNaN(time) ? null : { kind: 'date', value: time };
    }
    case 'Pointer':
      if (typeof value.objectId !== 'string') return null;
      return { kind: 'pointer', objectId: value.objectId, className: typeof value.className === 'string' ? value.className : undefined };
    case 'GeoPoint':
      if (typeof value.latitude !== 'number' || typeof value.longitude !== 'number') return null;
      return { kind: 'geoPoint', latitude: value.latitude, longitude: value.longitude };
    default:
      return null;
  }
}

/** Equality as queries see it: dates by time, pointers by objectId, null equals missing. */
export function typedEqual(a: TypedValue, b: TypedValue): boolean {
  const aNull = a.kind === 'null' || a.kind === 'missing';
  const bNull = b.kind === 'null' || b.kind === 'missing';
  if (aNull || bNull) return aNull && bNull;
  switch (a.kind) {
    case 'boolean':
    case 'number':
    case 'string':
    case 'date':
      return b.kind === a.kind && b.value === a.value;
    case 'pointer':
      return b.kind === 'pointer' && b.objectId === a.objectId && (a.className === undefined || b.className === undefined || a.className === b.className);
    case 'geoPoint':
      return b.kind === 'geoPoint' && b.latitude === a.latitude && b.longitude === a.longitude;
    case 'array':
    case 'object':
      return b.kind === a.kind && jsonEqual(a.value, b.value);
  }
}

/**
 * Compares two values of the same orderable kind (numbers, strings, dates);
 * null when they cannot be compared, so `$lt` and friends do not match.
 */
export function compareSameKind(a: TypedValue, b: TypedValue): number | null {
  if (a.kind === 'number' && b.kind === 'number') return a.value - b.value;
  if (a.kind === 'date' && b.kind === 'date') return a.value - b.value;
  if (a.kind === 'string' && b.kind === 'string') return compareStrings(a.value, b.value);
  return null;
}

/** Code-unit order, the same on every adapter (no locale collation). */
export function compareStrings(a: string, b: string): number {
  if (a === b) return 0;
  return a < b ? -1 : 1;
}
