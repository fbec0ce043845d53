import { valueAtPath } from './field-path.ts';
import { isJsonObject } from './json-value.ts';
import type { Condition, FieldPredicate } from './query.ts';
import { compareSameKind, isTimestampPath, typedEqual, typedValue, type TypedValue } from './typed-value.ts';

/**
 * Whether an object meets a condition (null meets everything). Semantics
 * follow MongoDB/Parse: a predicate on an array field matches when the array
 * or any element matches; `$lt` and friends compare only values of the same
 * kind; `$ne`, `$nin` and `$exists: false` match a missing field.
 */
export function matches(condition: Condition | null, object: Readonly<Record<string, unknown>>): boolean {
  if (condition === null) return true;
  switch (condition.kind) {
    case 'and':
      return condition.conditions.every((item) => matches(item, object));
    case 'or':
      return condition.conditions.some((item) => matches(item, object));
    case 'field': {
      const stored = valueAtPath(object, condition.path);
      const timestamp = isTimestampPath(condition.path);
      return condition.predicates.every((predicate) => predicateMatches(predicate, stored, timestamp));
    }
  }
}

/**
 * Whether one of `readableBy` (`*`, user ids) may read an object under its
 * `ACL` field. Null `readableBy` (master key) and objects without an ACL are
 * readable by all; a malformed ACL is readable by none.
 */
export function isReadable(object: Readonly<Record<string, unknown>>, readableBy: readonly string[] | null): boolean {
  if (readableBy === null) return true;
  const acl = object.ACL;
  if (acl === undefined || acl === null) return true;
  if (!isJsonObject(acl)) return false;
  return readableBy.some((principal) => {
    const grant = Object.hasOwn(acl, principal) ? acl[principal] : undefined;
    return isJsonObject(grant) && grant.read === true;
  });
}

function predicateMatches(predicate: FieldPredicate, stored: unknown, timestamp: boolean): boolean {
  switch (predicate.op) {
    case 'eq':
      return equalsOrContains(stored, predicate.value, timestamp);
    case 'ne':
      return !equalsOrContains(stored, predicate.value, timestamp);
    case 'lt':
    case 'lte':
    case 'gt':
    case 'gte': {
      const operand = typedValue(predicate.value, timestamp);
      const op = predicate.op;
      return anyValue(stored, timestamp, (value) => {
        const order = compareSameKind(value, operand);
        return order !== null && orderAccepts(op, order);
      });
    }
    case 'in':
      return predicate.values.some((value) => equalsOrContains(stored, value, timestamp));
    case 'nin':
      return !predicate.values.some((value) => equalsOrContains(stored, value, timestamp));
    case 'all':
      return (
        Array.isArray(stored) &&
        predicate.values.length > 0 &&
        predicate.values.every((value) => stored.some((item) => typedEqual(typedValue(item), typedValue(value))))
      );
    case 'exists':
      return (stored !== undefined) === predicate.value;
    case 'regex':
      return anyValue(stored, false, (value) => value.kind === 'string' && predicate.matcher.test(value.value));
  }
}

function orderAccepts(op: 'lt' | 'lte' | 'gt' | 'gte', order: number): boolean {
  switch (op) {
    case 'lt':
      return order < 0;
    case 'lte':
      return order <= 0;
    case 'gt':
      return order > 0;
    case 'gte':
      return order >= 0;
  }
}

/** Equality, or for an array field, containment of the value. */
function equalsOrContains(stored: unknown, value: unknown, timestamp: boolean): boolean {
  const operand = typedValue(value, timestamp);
  return anyValue(stored, timestamp, (item) => typedEqual(item, operand));
}

/** Tests the stored value itself and, when it is an array, each element. */
function anyValue(stored: unknown, timestamp: boolean, test: (value: TypedValue) => boolean): boolean {
  if (test(typedValue(stored, timestamp))) return true;
  return Array.isArray(stored) && stored.some((item) => test(typedValue(item)));
}
