import { describe, expect, it } from 'vitest';
import { ErrorCode, HeraldError } from '../../src/core/errors.ts';
import { maxNestingDepth } from '../../src/query/json-nesting.ts';
import { maxRegexLength, maxWhereValues, parseQuery, parseWhere } from '../../src/query/parse-query.ts';
import type { Condition, Query } from '../../src/query/query.ts';
import { captureError } from '../support/capture-error.ts';

const where = (value: unknown): Record<string, string> => ({ where: JSON.stringify(value) });

describe('parseQuery', () => {
  it('answers the defaults for no parameters', () => {
    expect(parseQuery({})).toEqual({ where: null, order: [], skip: 0, limit: 100, keys: null, count: false, readableBy: null });
  });

  it('carries readableBy from the options', () => {
    expect(parseQuery({}, { readableBy: ['*', 'u1'] }).readableBy).toEqual(['*', 'u1']);
  });

  it.each<[string, Record<string, unknown>, Partial<Query>]>([
    ['limit and skip', { limit: '20', skip: '40' }, { limit: 20, skip: 40 }],
    ['limit 0, for a count only', { limit: '0' }, { limit: 0 }],
    ['the largest limit', { limit: '1000' }, { limit: 1000 }],
    ['the largest skip', { skip: '100000' }, { skip: 100_000 }],
    ['numbers from a programmatic caller', { limit: 5, skip: 2 }, { limit: 5, skip: 2 }],
    ['order with descending keys and spaces', { order: 'score, -createdAt' }, { order: [{ path: ['score'], descending: false }, { path: ['createdAt'], descending: true }] }],
    ['order by a nested path', { order: '-authData.weibo.uid' }, { order: [{ path: ['authData', 'weibo', 'uid'], descending: true }] }],
    ['empty order', { order: '' }, { order: [] }],
    ['keys', { keys: 'username,authData.weibo' }, { keys: ['username', 'authData.weibo'] }],
    ['empty keys, as if not given', { keys: '' }, { keys: null }],
    ['count=1', { count: '1' }, { count: true }],
    ['count=true', { count: 'true' }, { count: true }],
    ['count=0', { count: '0' }, { count: false }],
    ['a reserved-looking field in order', { order: '_weibo_unionid' }, { order: [{ path: ['_weibo_unionid'], descending: false }] }],
    ['unknown parameters, which are ignored', { include: 'x', _method: 'GET' }, {}],
  ])('accepts %s', (_title, params, expected) => {
    expect(parseQuery(params)).toMatchObject(expected);
  });

  it.each<[string, Record<string, unknown>, number, RegExp]>([
    ['where that is not JSON', { where: '{"a":' }, ErrorCode.invalidJson, /not valid JSON/],
    ['where that is a JSON array', where([1]), ErrorCode.invalidJson, /JSON object/],
    ['where that is JSON null', { where: 'null' }, ErrorCode.invalidJson, /JSON object/],
    ['where that is a JSON string', where('a'), ErrorCode.invalidJson, /JSON object/],
    ['where given twice', { where: ['{}', '{}'] }, ErrorCode.invalidJson, /given once/],
    ['an unknown operator', where({ a: { $foo: 1 } }), ErrorCode.internal, /unknown operator \$foo/],
    ['an unknown top-level operator', where({ $nor: [] }), ErrorCode.internal, /unknown operator \$nor/],
    ['operators mixed with fields', where({ a: { $gt: 1, b: 2 } }), ErrorCode.internal, /mixes operators/],
    ['$in that is not an array', where({ a: { $in: 'x' } }), ErrorCode.internal, /\$in on a needs an array/],
    ['$nin that is not an array', where({ a: { $nin: 1 } }), ErrorCode.internal, /\$nin/],
    ['$all that is not an array', where({ a: { $all: {} } }), ErrorCode.internal, /\$all/],
    ['$exists that is not a boolean', where({ a: { $exists: 1 } }), ErrorCode.internal, /\$exists/],
    ['$lt with a boolean', where({ a: { $lt: true } }), ErrorCode.internal, /\$lt on a needs a number/],
    ['$gte with an object', where({ a: { $gte: { b: 1 } } }), ErrorCode.internal, /\$gte/],
    ['$regex that is not a string', where({ a: { $regex: 1 } }), ErrorCode.internal, /\$regex/],
    ['an invalid regex', where({ a: { $regex: '(' } }), ErrorCode.internal, /not a valid regular expression.*missing closing \)/],
    ['a regex backreference', where({ a: { $regex: '(a)\\1' } }), ErrorCode.internal, /\$regex on a uses a backreference \(\\1\), which is not supported/],
    ['a regex named backreference', where({ a: { $regex: '(?<x>a)\\k<x>' } }), ErrorCode.internal, /uses a named backreference/],
    ['a regex lookahead', where({ a: { $regex: 'a(?=b)' } }), ErrorCode.internal, /uses a lookahead \(\(\?=…\), which is not supported/],
    ['a negative regex lookahead', where({ a: { $regex: 'a(?!b)' } }), ErrorCode.internal, /uses a lookahead \(\(\?!…\)/],
    ['a regex lookbehind', where({ a: { $regex: '(?<=a)b' } }), ErrorCode.internal, /uses a lookbehind \(\(\?<=…\)/],
    ['a negative regex lookbehind', where({ a: { $regex: '(?<!a)b' } }), ErrorCode.internal, /uses a lookbehind \(\(\?<!…\)/],
    ['a regex atomic group', where({ a: { $regex: '(?>a)' } }), ErrorCode.internal, /not a valid regular expression.*\(\?>/],
    ['a regex that is too long', where({ a: { $regex: 'x'.repeat(maxRegexLength + 1) } }), ErrorCode.internal, /longer than/],
    ['an unsupported regex flag', where({ a: { $regex: 'x', $options: 'g' } }), ErrorCode.internal, /unsupported flag g/],
    ['$options without $regex', where({ a: { $options: 'i' } }), ErrorCode.internal, /needs \$regex/],
    ['$or that is not an array', where({ $or: { a: 1 } }), ErrorCode.internal, /\$or needs/],
    ['$or that is empty', where({ $or: [] }), ErrorCode.internal, /\$or needs/],
    ['$and holding a non-object', where({ $and: [1] }), ErrorCode.internal, /\$and needs/],
    ['a Date without a valid iso', where({ a: { __type: 'Date', iso: 'yesterday' } }), ErrorCode.internal, /invalid Date/],
    ['a GeoPoint out of range', where({ a: { __type: 'GeoPoint', latitude: 91, longitude: 0 } }), ErrorCode.internal, /invalid GeoPoint/],
    ['a Pointer without objectId', where({ a: { $in: [{ __type: 'Pointer', className: '_User' }] } }), ErrorCode.internal, /invalid Pointer/],
    ['$or nested too deeply', where(nestedOr(40)), ErrorCode.invalidJson, /^where nests deeper than 64 levels$/],
    ['a field name with an empty segment', where({ 'a..b': 1 }), ErrorCode.invalidFieldName, /invalid field name/],
    ['a field name starting with a digit', where({ '1a': 1 }), ErrorCode.invalidFieldName, /invalid field name/],
    ['a limit that is not a number', { limit: 'ten' }, ErrorCode.internal, /limit must be a non-negative integer/],
    ['a negative limit', { limit: '-1' }, ErrorCode.internal, /limit must be a non-negative integer/],
    ['a fractional limit', { limit: 1.5 }, ErrorCode.internal, /limit must be a non-negative integer/],
    ['an empty limit', { limit: '' }, ErrorCode.internal, /limit must be/],
    ['a limit over 1000', { limit: '1001' }, ErrorCode.internal, /limit must be at most 1000/],
    ['a skip over the maximum', { skip: '100001' }, ErrorCode.internal, /skip must be at most/],
    ['skip given twice', { skip: ['1', '2'] }, ErrorCode.internal, /skip must be given once/],
    ['a count that is not 0 or 1', { count: 'yes' }, ErrorCode.internal, /count must be/],
    ['an order key with $', { order: 'a$b' }, ErrorCode.invalidFieldName, /invalid field name/],
    ['an empty order key', { order: 'a,,b' }, ErrorCode.invalidFieldName, /invalid field name/],
    ['a lone minus in order', { order: '-' }, ErrorCode.invalidFieldName, /invalid field name/],
    ['a key with a space inside', { keys: 'a b' }, ErrorCode.invalidFieldName, /invalid field name/],
    ['a key with $', { keys: 'name,$where' }, ErrorCode.invalidFieldName, /invalid field name/],
  ])('refuses %s', (_title, params, code, message) => {
    const error = captureError(() => parseQuery(params));
    expect(error).toBeInstanceOf(HeraldError);
    expect(error).toMatchObject({ code, status: 400 });
    expect((error as HeraldError).message).toMatch(message);
  });
});

describe('parseWhere', () => {
  it.each<[string, unknown, Condition | null]>([
    ['undefined as no condition', undefined, null],
    ['an empty object as no condition', {}, null],
    ['plain equality', { channels: 'news' }, { kind: 'field', path: ['channels'], predicates: [{ op: 'eq', value: 'news' }] }],
    ['a nested path', { 'authData.weibo.uid': 'w1' }, { kind: 'field', path: ['authData', 'weibo', 'uid'], predicates: [{ op: 'eq', value: 'w1' }] }],
    [
      'several operators on one field',
      { score: { $gt: 1, $lte: 5 } },
      { kind: 'field', path: ['score'], predicates: [{ op: 'gt', value: 1 }, { op: 'lte', value: 5 }] },
    ],
    [
      'each set operator',
      { a: { $in: [1], $nin: [2], $all: [3] } },
      { kind: 'field', path: ['a'], predicates: [{ op: 'in', values: [1] }, { op: 'nin', values: [2] }, { op: 'all', values: [3] }] },
    ],
    ['$exists', { a: { $exists: false } }, { kind: 'field', path: ['a'], predicates: [{ op: 'exists', value: false }] }],
    ['$ne with null', { a: { $ne: null } }, { kind: 'field', path: ['a'], predicates: [{ op: 'ne', value: null }] }],
    [
      'an encoded Date, kept encoded',
      { when: { $lt: { __type: 'Date', iso: '2024-01-01T00:00:00.000Z' } } },
      { kind: 'field', path: ['when'], predicates: [{ op: 'lt', value: { __type: 'Date', iso: '2024-01-01T00:00:00.000Z' } }] },
    ],
    [
      'a plain object without operators as equality',
      { nested: { a: 1 } },
      { kind: 'field', path: ['nested'], predicates: [{ op: 'eq', value: { a: 1 } }] },
    ],
    [
      'fields beside $or as a conjunction',
      { a: 1, $or: [{ b: 2 }, {}] },
      {
        kind: 'and',
        conditions: [
          { kind: 'field', path: ['a'], predicates: [{ op: 'eq', value: 1 }] },
          {
            kind: 'or',
            conditions: [
              { kind: 'field', path: ['b'], predicates: [{ op: 'eq', value: 2 }] },
              { kind: 'and', conditions: [] },
            ],
          },
        ],
      },
    ],
  ])('parses %s', (_title, input, expected) => {
    expect(parseWhere(input)).toEqual(expected);
  });

  it('parses $regex with repeated flags kept once, compiled when parsed', () => {
    const condition = parseWhere({ a: { $regex: '^x', $options: 'ii' } });
    expect(condition).toMatchObject({ kind: 'field', path: ['a'], predicates: [{ op: 'regex', source: '^x', flags: 'i' }] });
    const predicate = condition?.kind === 'field' ? condition.predicates[0] : undefined;
    expect(predicate?.op === 'regex' && predicate.matcher.test('Xy')).toBe(true);
  });

  it('refuses a value that is not an object with code 107', () => {
    for (const value of [null, [], 'a', 1]) {
      expect(captureError(() => parseWhere(value))).toMatchObject({ code: ErrorCode.invalidJson });
    }
  });
});

describe('the bounds of a where', () => {
  /** `{"a": [[…1…]]}` as JSON text, `levels` deep in all. */
  const arraysIn = (levels: number): string => `{"a":${'['.repeat(levels - 1)}1${']'.repeat(levels - 1)}}`;
  const shapes: Record<string, (levels: number) => string> = {
    'arrays compared by equality': arraysIn,
    'arrays inside $in': (levels) => `{"a":{"$in":${'['.repeat(levels - 2)}1${']'.repeat(levels - 2)}}}`,
    'objects compared by equality': (levels) => `${'{"a":'.repeat(levels)}1${'}'.repeat(levels)}`,
    '$or inside $or': (levels) => `${'{"$or":['.repeat(levels / 2)}{}${']}'.repeat(levels / 2)}`,
  };

  it.each(Object.keys(shapes).flatMap((shape) => [5_000, 100_000].map((levels) => [shape, levels] as const)))(
    'refuses %s nested %i levels deep with 107, without overflowing the stack',
    (shape, levels) => {
      const error = captureError(() => parseQuery({ where: shapes[shape]!(levels) }));
      expect(error).toBeInstanceOf(HeraldError);
      expect(error).toMatchObject({ code: ErrorCode.invalidJson, status: 400, message: `where nests deeper than ${maxNestingDepth} levels` });
    },
  );

  it('takes a where exactly as deep as the limit, and refuses one level more', () => {
    expect(parseQuery({ where: arraysIn(maxNestingDepth) }).where).toMatchObject({ kind: 'field', path: ['a'] });
    expect(parseWhere(nestedOr(31))).toMatchObject({ kind: 'or' });
    expect(captureError(() => parseQuery({ where: arraysIn(maxNestingDepth + 1) }))).toMatchObject({ code: ErrorCode.invalidJson });
  });

  it('takes a where holding exactly the most values, and refuses one more with code 1', () => {
    // The object, the condition object, the $in array: three values beside the listed ones.
    const ids = (count: number) => ({ objectId: { $in: Array.from({ length: count }, (_, n) => `id${n}`) } });
    expect(parseWhere(ids(maxWhereValues - 3))).toMatchObject({ kind: 'field', predicates: [{ op: 'in' }] });
    const error = captureError(() => parseWhere(ids(maxWhereValues - 2)));
    expect(error).toMatchObject({ code: ErrorCode.internal, status: 400, message: `where holds more than ${maxWhereValues} values: split the query` });
  });

  it('bounds a where given as decoded JSON as well, as a push body holds it', () => {
    expect(captureError(() => parseWhere(JSON.parse(arraysIn(100_000))))).toMatchObject({ code: ErrorCode.invalidJson });
  });
});

function nestedOr(depth: number): Record<string, unknown> {
  let condition: Record<string, unknown> = { a: 1 };
  for (let level = 0; level < depth; level += 1) condition = { $or: [condition] };
  return condition;
}
