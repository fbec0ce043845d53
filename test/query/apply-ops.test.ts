import { describe, expect, it } from 'vitest';
import { ErrorCode, HeraldError } from '../../src/core/errors.ts';
import type { FieldOp, StoredObject } from '../../src/core/ports/object-store.ts';
import { applyOps } from '../../src/query/apply-ops.ts';

const base = (): StoredObject => ({
  objectId: 'o1',
  createdAt: '2025-01-01T00:00:00.000Z',
  updatedAt: '2025-01-01T00:00:00.000Z',
  title: 'hello',
  score: 2,
  tags: ['a', 'b'],
  authData: { weibo: { uid: 'w1' }, qq: { uid: 'q1' } },
  items: [{ a: 1 }],
});

describe('applyOps', () => {
  it.each<[string, FieldOp[], Record<string, unknown>]>([
    ['set replaces a field', [{ op: 'set', path: ['title'], value: 'bye' }], { title: 'bye' }],
    ['set adds a new field', [{ op: 'set', path: ['fresh'], value: { x: [1] } }], { fresh: { x: [1] } }],
    ['set on a nested path keeps siblings', [{ op: 'set', path: ['authData', 'weixin'], value: { uid: 'x' } }], { authData: { weibo: { uid: 'w1' }, qq: { uid: 'q1' }, weixin: { uid: 'x' } } }],
    ['set creates missing parents', [{ op: 'set', path: ['a', 'b', 'c'], value: 1 }], { a: { b: { c: 1 } } }],
    ['delete removes a field', [{ op: 'delete', path: ['title'] }], { title: undefined }],
    ['delete removes a nested key', [{ op: 'delete', path: ['authData', 'weibo'] }], { authData: { qq: { uid: 'q1' } } }],
    ['delete of a missing nested key changes nothing', [{ op: 'delete', path: ['absent', 'x'] }], {}],
    ['delete inside a non-object changes nothing', [{ op: 'delete', path: ['title', 'x'] }], {}],
    ['increment adds', [{ op: 'increment', path: ['score'], amount: 3 }], { score: 5 }],
    ['increment by a negative amount', [{ op: 'increment', path: ['score'], amount: -5 }], { score: -3 }],
    ['increment of a missing field starts at the amount', [{ op: 'increment', path: ['visits'], amount: 1 }], { visits: 1 }],
    ['add appends', [{ op: 'add', path: ['tags'], objects: ['b', 'c'] }], { tags: ['a', 'b', 'b', 'c'] }],
    ['add to a missing field', [{ op: 'add', path: ['list'], objects: [1] }], { list: [1] }],
    ['addUnique skips present and repeated values', [{ op: 'addUnique', path: ['tags'], objects: ['b', 'c', 'c'] }], { tags: ['a', 'b', 'c'] }],
    ['addUnique compares objects by value', [{ op: 'addUnique', path: ['items'], objects: [{ a: 1 }, { a: 2 }] }], { items: [{ a: 1 }, { a: 2 }] }],
    ['remove drops every equal value', [{ op: 'remove', path: ['items'], objects: [{ a: 1 }] }], { items: [] }],
    ['remove from a missing field leaves an empty array', [{ op: 'remove', path: ['list'], objects: [1] }], { list: [] }],
    [
      'ops apply in order',
      [
        { op: 'set', path: ['n'], value: 1 },
        { op: 'increment', path: ['n'], amount: 1 },
        { op: 'delete', path: ['title'] },
        { op: 'set', path: ['title'], value: 'again' },
      ],
      { n: 2, title: 'again' },
    ],
  ])('%s', (_title, ops, changes) => {
    const input = base();
    const expected: Record<string, unknown> = { ...base(), ...changes };
    for (const [key, value] of Object.entries(changes)) if (value === undefined) delete expected[key];
    const result = applyOps(input, ops);
    expect(result).toStrictEqual(expected);
    expect(input).toStrictEqual(base());
  });

  it.each<[string, FieldOp]>([
    ['increment of a string', { op: 'increment', path: ['title'], amount: 1 }],
    ['increment of null', { op: 'increment', path: ['nothing'], amount: 1 }],
    ['add to a string', { op: 'add', path: ['title'], objects: ['x'] }],
    ['addUnique to an object', { op: 'addUnique', path: ['authData'], objects: ['x'] }],
    ['remove from a number', { op: 'remove', path: ['score'], objects: [2] }],
    ['set inside a string', { op: 'set', path: ['title', 'x'], value: 1 }],
  ])('refuses %s with code 111', (_title, op) => {
    const input = { ...base(), nothing: null };
    let error: unknown;
    try {
      applyOps(input, [op]);
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(HeraldError);
    expect(error).toMatchObject({ code: ErrorCode.invalidType, status: 400 });
  });

  it('stores a field named __proto__ as data, never touching prototypes', () => {
    const result = applyOps(base(), [
      { op: 'set', path: ['__proto__', 'polluted'], value: true },
      { op: 'set', path: ['constructor', 'x'], value: 1 },
    ]);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(Object.getPrototypeOf(result)).toBe(Object.prototype);
    expect(JSON.parse(JSON.stringify(result))).toMatchObject({ ['__proto__']: { polluted: true }, constructor: { x: 1 } });
  });
});
