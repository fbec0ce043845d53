import type { FindResult, StoredObject } from '../core/ports/object-store.ts';
import { BoundedHeap } from './bounded-heap.ts';
import { setOwn, valueAtPath } from './field-path.ts';
import { isJsonObject } from './json-value.ts';
import { isReadable, matches } from './match.ts';
import type { OrderKey, Query } from './query.ts';
import { compareStrings, isTimestampPath, typedValue, type TypedValue } from './typed-value.ts';

interface Candidate {
  sortValues: TypedValue[];
  object: StoredObject;
}

const defaultOrder: OrderKey[] = [{ path: ['createdAt'], descending: false }];
const idOrder: OrderKey = { path: ['objectId'], descending: false };

/**
 * Runs a query over a stream of one class's objects: filters by `where` and
 * ACL, counts, orders, pages and projects. Only `skip + limit` candidates are
 * held at a time, never every match. A synchronous source is consumed without
 * yielding, so an adapter's cursor is finished before the promise settles.
 */
export async function runQuery(source: AsyncIterable<StoredObject> | Iterable<StoredObject>, query: Query): Promise<FindResult> {
  const order = orderWithTieBreak(query.order);
  const compare = (a: Candidate, b: Candidate): number => compareCandidates(order, a, b);
  const heap = new BoundedHeap<Candidate>(query.limit === 0 ? 0 : query.skip + query.limit, compare);
  let count = 0;
  const offer = (object: StoredObject): void => {
    if (!isReadable(object, query.readableBy) || !matches(query.where, object)) return;
    count += 1;
    const candidate = { sortValues: order.map((key) => sortValue(object, key)), object };
    if (heap.accepts(candidate)) heap.offer({ ...candidate, object: project(object, query.keys) });
  };
  if (isAsyncIterable(source)) {
    for await (const object of source) offer(object);
  } else {
    for (const object of source) offer(object);
  }
  const results = heap.sorted().slice(query.skip).map((candidate) => candidate.object);
  return query.count ? { results, count } : { results };
}

function isAsyncIterable<T>(source: AsyncIterable<T> | Iterable<T>): source is AsyncIterable<T> {
  return Symbol.asyncIterator in source;
}

/** Ends every order with objectId so that pages never overlap or skip objects. */
function orderWithTieBreak(order: readonly OrderKey[]): OrderKey[] {
  const keys = order.length === 0 ? defaultOrder : order;
  const hasId = keys.some((key) => key.path.length === 1 && key.path[0] === 'objectId');
  return hasId ? [...keys] : [...keys, idOrder];
}

function sortValue(object: StoredObject, key: OrderKey): TypedValue {
  return typedValue(valueAtPath(object, key.path), isTimestampPath(key.path));
}

function compareCandidates(order: readonly OrderKey[], a: Candidate, b: Candidate): number {
  for (const [index, key] of order.entries()) {
    const left = a.sortValues[index];
    const right = b.sortValues[index];
    if (left === undefined || right === undefined) continue;
    const result = compareForOrder(left, right);
    if (result !== 0) return key.descending ? -result : result;
  }
  return 0;
}

/** Sort rank of each kind, as in MongoDB: missing and null first, then numbers, strings, objects, arrays, booleans, dates. */
const kindRank: Record<TypedValue['kind'], number> = {
  missing: 0,
  null: 0,
  number: 1,
  string: 2,
  object: 3,
  pointer: 3,
  geoPoint: 3,
  array: 4,
  boolean: 5,
  date: 6,
};

function compareForOrder(a: TypedValue, b: TypedValue): number {
  const rank = kindRank[a.kind] - kindRank[b.kind];
  if (rank !== 0) return rank;
  if ((a.kind === 'number' || a.kind === 'date') && (b.kind === 'number' || b.kind === 'date')) return Math.sign(a.value - b.value);
  if (a.kind === 'string' && b.kind === 'string') return compareStrings(a.value, b.value);
  if (a.kind === 'boolean' && b.kind === 'boolean') return Number(a.value) - Number(b.value);
  return compareStrings(orderText(a), orderText(b));
}

/** A stable text for kinds without a natural order (objects, arrays, geo points). */
function orderText(value: TypedValue): string {
  switch (value.kind) {
    case 'pointer':
      return value.objectId;
    case 'geoPoint':
      return JSON.stringify([value.latitude, value.longitude]);
    case 'array':
    case 'object':
      return JSON.stringify(value.value);
    default:
      return '';
  }
}

/** Keeps the requested fields (dotted names keep one nested value) plus the three fixed ones. */
function project(object: StoredObject, keys: readonly string[] | null): StoredObject {
  if (keys === null) return object;
  const result: StoredObject = { objectId: object.objectId, createdAt: object.createdAt, updatedAt: object.updatedAt };
  for (const key of keys) {
    const path = key.split('.');
    const value = valueAtPath(object, path);
    if (value !== undefined) setPath(result, path, value);
  }
  return result;
}

function setPath(target: Record<string, unknown>, path: readonly string[], value: unknown): void {
  const [key, ...rest] = path;
  if (key === undefined) return;
  if (rest.length === 0) {
    setOwn(target, key, value);
    return;
  }
  const existing = Object.hasOwn(target, key) ? target[key] : undefined;
  // Copied, so that merging two keys under one parent never writes into the source.
  const child = isJsonObject(existing) ? { ...existing } : {};
  setOwn(target, key, child);
  setPath(child, rest, value);
}
