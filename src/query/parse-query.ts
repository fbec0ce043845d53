import { ErrorCode, fail } from '../core/errors.ts';
import { compileRegex } from './compile-regex.ts';
import { maxNestingDepth, measureJson } from './json-nesting.ts';
import { isJsonObject } from './json-value.ts';
import { defaultLimit, maxLimit, maxSkip, type Condition, type FieldPredicate, type OrderKey, type Query } from './query.ts';

export interface ParseQueryOptions {
  /** Principals whose ACL read access limits the results; null (the default) for master-key callers. */
  readableBy?: string[] | null;
}

/** Longest `$regex` source accepted; longer patterns are refused to protect the process. */
export const maxRegexLength = 1000;

/**
 * Most values a `where` may hold (every object, array and scalar in it
 * counts one): each is weighed against every object a query reads.
 */
export const maxWhereValues = 5000;

/** First segment of a field name: a letter or `_`, then letters, digits and `_`. */
const topFieldPattern = /^[A-Za-z_][A-Za-z0-9_]*$/;

/**
 * Turns the URL parameters of a query request (`where`, `order`, `skip`,
 * `limit`, `keys`, `count`) into a validated `Query`. Other parameters are
 * ignored. Throws `HeraldError` with code 107, 105 or 1 on malformed input.
 */
export function parseQuery(params: Readonly<Record<string, unknown>>, options: ParseQueryOptions = {}): Query {
  return {
    where: parseWhereParam(params.where),
    order: parseOrder(params.order),
    skip: parseInteger('skip', params.skip, 0, maxSkip),
    limit: parseInteger('limit', params.limit, defaultLimit, maxLimit),
    keys: parseKeys(params.keys),
    count: parseCountFlag(params.count),
    readableBy: options.readableBy ?? null,
  };
}

/**
 * Parses a `where` value that is already decoded JSON (e.g. from a push
 * body). Undefined means no condition; null is answered for `{}` as well.
 * Every `where` passes here, so its bounds hold for every caller: at most
 * `maxNestingDepth` levels (107) and `maxWhereValues` values (1), checked
 * without recursion before anything walks it.
 */
export function parseWhere(value: unknown): Condition | null {
  if (value === undefined) return null;
  if (!isJsonObject(value)) fail(ErrorCode.invalidJson, 'where must be a JSON object');
  checkBounds(value);
  return parseObject(value);
}

function checkBounds(where: Record<string, unknown>): void {
  const shape = measureJson(where, { depth: maxNestingDepth, values: maxWhereValues });
  if (shape.depth > maxNestingDepth) fail(ErrorCode.invalidJson, `where nests deeper than ${maxNestingDepth} levels`);
  if (shape.values > maxWhereValues) fail(ErrorCode.internal, `where holds more than ${maxWhereValues} values: split the query`);
}

function parseWhereParam(value: unknown): Condition | null {
  if (value === undefined) return null;
  if (typeof value !== 'string') fail(ErrorCode.invalidJson, 'where must be a JSON-encoded object given once');
  let decoded: unknown;
  try {
    decoded = JSON.parse(value);
  } catch {
    fail(ErrorCode.invalidJson, 'where is not valid JSON');
  }
  return parseWhere(decoded);
}

function parseObject(where: Record<string, unknown>): Condition | null {
  const conditions: Condition[] = [];
  for (const [key, value] of Object.entries(where)) {
    if (key === '$or' || key === '$and') conditions.push(parseJunction(key, value));
    else if (key.startsWith('$')) fail(ErrorCode.internal, `unknown operator ${key}`);
    else conditions.push(parseFieldCondition(key, value));
  }
  if (conditions.length === 1 && conditions[0] !== undefined) return conditions[0];
  return conditions.length === 0 ? null : { kind: 'and', conditions };
}

function parseJunction(operator: '$or' | '$and', value: unknown): Condition {
  if (!Array.isArray(value) || value.length === 0) fail(ErrorCode.internal, `${operator} needs a non-empty array of conditions`);
  const conditions = value.map((item: unknown): Condition => {
    if (!isJsonObject(item)) fail(ErrorCode.internal, `${operator} needs a non-empty array of conditions`);
    // An empty object inside $or/$and is a condition every object meets.
    return parseObject(item) ?? { kind: 'and', conditions: [] };
  });
  return { kind: operator === '$or' ? 'or' : 'and', conditions };
}

function parseFieldCondition(name: string, value: unknown): Condition {
  const path = parseFieldPath(name);
  const operators = isJsonObject(value) ? Object.keys(value) : [];
  if (!isJsonObject(value) || !operators.some((key) => key.startsWith('$'))) {
    return { kind: 'field', path, predicates: [{ op: 'eq', value: checkValue(name, value) }] };
  }
  const predicates: FieldPredicate[] = [];
  for (const operator of operators) {
    if (operator === '$options') {
      if (!('$regex' in value)) fail(ErrorCode.internal, `$options on ${name} needs $regex`);
      continue;
    }
    predicates.push(parsePredicate(name, operator, value[operator], value.$options));
  }
  return { kind: 'field', path, predicates };
}

function parsePredicate(name: string, operator: string, operand: unknown, options: unknown): FieldPredicate {
  switch (operator) {
    case '$eq':
    case '$ne':
      return { op: operator === '$eq' ? 'eq' : 'ne', value: checkValue(name, operand) };
    case '$lt':
    case '$lte':
    case '$gt':
    case '$gte':
      return { op: comparisonOps[operator], value: checkOrderable(name, operator, operand) };
    case '$in':
    case '$nin':
    case '$all':
      if (!Array.isArray(operand)) fail(ErrorCode.internal, `${operator} on ${name} needs an array`);
      return { op: setOps[operator], values: operand.map((item: unknown) => checkValue(name, item)) };
    case '$exists':
      if (typeof operand !== 'boolean') fail(ErrorCode.internal, `$exists on ${name} needs true or false`);
      return { op: 'exists', value: operand };
    case '$regex':
      return parseRegex(name, operand, options);
    default:
      if (!operator.startsWith('$')) fail(ErrorCode.internal, `condition on ${name} mixes operators with the field ${operator}`);
      return fail(ErrorCode.internal, `unknown operator ${operator} on ${name}`);
  }
}

const comparisonOps = { $lt: 'lt', $lte: 'lte', $gt: 'gt', $gte: 'gte' } as const;
const setOps = { $in: 'in', $nin: 'nin', $all: 'all' } as const;

function parseRegex(name: string, source: unknown, options: unknown): FieldPredicate {
  if (typeof source !== 'string') fail(ErrorCode.internal, `$regex on ${name} needs a string`);
  if (source.length > maxRegexLength) fail(ErrorCode.internal, `$regex on ${name} is longer than ${maxRegexLength} characters`);
  if (options !== undefined && typeof options !== 'string') fail(ErrorCode.internal, `$options on ${name} needs a string`);
  const flags = [...new Set(options ?? '')].join('');
  return { op: 'regex', source, flags, matcher: compileRegex(name, source, flags) };
}

/** Checks the encoded forms in a value compared by equality. */
function checkValue(name: string, value: unknown): unknown {
  if (isJsonObject(value)) checkEncoded(name, value);
  else if (Array.isArray(value)) value.forEach((item) => checkValue(name, item));
  return value;
}

function checkOrderable(name: string, operator: string, value: unknown): unknown {
  const orderable =
    (typeof value === 'number' && Number.isFinite(value)) || typeof value === 'string' || (isJsonObject(value) && value.__type === 'Date');
  if (!orderable) fail(ErrorCode.internal, `${operator} on ${name} needs a number, a string or a Date`);
  return checkValue(name, value);
}

function checkEncoded(name: string, value: Record<string, unknown>): void {
  switch (value.__type) {
    case 'Date':
      if (typeof value.iso !== 'string' || Number.isNaN(Date.parse(value.iso))) fail(ErrorCode.internal, `invalid Date in the condition on ${name}`);
      return;
    case 'Pointer':
      if (typeof value.objectId !== 'string') fail(ErrorCode.internal, `invalid Pointer in the condition on ${name}`);
      return;
    case 'GeoPoint': {
      const { latitude, longitude } = value;
      const valid =
        typeof latitude === 'number' && typeof longitude === 'number' && Math.abs(latitude) <= 90 && Math.abs(longitude) <= 180;
      if (!valid) fail(ErrorCode.internal, `invalid GeoPoint in the condition on ${name}`);
      return;
    }
  }
}

/**
 * Splits `a.b.c` into a path. The first segment must be a plain field name;
 * nested keys are data (ACL user ids, authData platforms) and only have to
 * be non-empty and free of `$`.
 */
function parseFieldPath(name: string): string[] {
  const path = name.split('.');
  const [top, ...nested] = path;
  const valid = top !== undefined && topFieldPattern.test(top) && nested.every((segment) => segment !== '' && !segment.includes('$'));
  if (!valid) fail(ErrorCode.invalidFieldName, `invalid field name ${JSON.stringify(name)}`);
  return path;
}

function parseOrder(value: unknown): OrderKey[] {
  const text = singleString('order', value);
  if (text === undefined || text.trim() === '') return [];
  return text.split(',').map((item) => {
    const name = item.trim();
    const descending = name.startsWith('-');
    return { path: parseFieldPath(descending ? name.slice(1) : name), descending };
  });
}

function parseKeys(value: unknown): string[] | null {
  const text = singleString('keys', value);
  if (text === undefined || text.trim() === '') return null;
  return text.split(',').map((item) => parseFieldPath(item.trim()).join('.'));
}

function parseInteger(name: string, value: unknown, fallback: number, max: number): number {
  const given = typeof value === 'number' ? value : singleString(name, value);
  if (given === undefined) return fallback;
  const number = typeof given === 'number' ? given : /^\d{1,15}$/.test(given) ? Number(given) : Number.NaN;
  if (!Number.isSafeInteger(number) || number < 0) fail(ErrorCode.internal, `${name} must be a non-negative integer`);
  if (number > max) fail(ErrorCode.internal, `${name} must be at most ${max}`);
  return number;
}

function parseCountFlag(value: unknown): boolean {
  if (value === undefined || value === true || value === false) return value === true;
  const text = typeof value === 'number' ? String(value) : singleString('count', value);
  if (text === '1' || text === 'true') return true;
  if (text === '0' || text === 'false' || text === '') return false;
  return fail(ErrorCode.internal, 'count must be 1 or 0');
}

function singleString(name: string, value: unknown): string | undefined {
  if (value === undefined || typeof value === 'string') return value;
  return fail(ErrorCode.internal, `${name} must be given once, as text`);
}
