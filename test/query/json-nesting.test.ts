import { describe, expect, it } from 'vitest';
import { maxNestingDepth, measureJson, nestsTooDeep } from '../../src/query/json-nesting.ts';

describe('measureJson', () => {
  it.each<[string, unknown, { depth: number; values: number }]>([
    ['a scalar', 'text', { depth: 0, values: 1 }],
    ['null', null, { depth: 0, values: 1 }],
    ['an empty object', {}, { depth: 1, values: 1 }],
    ['an empty array', [], { depth: 1, values: 1 }],
    ['an object of scalars', { a: 1, b: 'x', c: null }, { depth: 1, values: 4 }],
    ['nested objects and arrays', { a: [1, { b: [2, 3] }], c: {} }, { depth: 4, values: 8 }],
  ])('measures %s', (_title, value, shape) => {
    expect(measureJson(value)).toEqual(shape);
  });

  it('stops once past the depth bound, answering a depth beyond it', () => {
    const deep = JSON.parse(`${'['.repeat(200_000)}${']'.repeat(200_000)}`) as unknown;
    expect(measureJson(deep)).toMatchObject({ depth: maxNestingDepth + 1 });
    expect(measureJson(deep, { depth: 10 })).toMatchObject({ depth: 11 });
  });

  it('stops once past the values bound, without visiting the rest', () => {
    const wide = Array.from({ length: 100_000 }, (_, n) => [n]);
    expect(measureJson(wide, { values: 10 })).toEqual({ depth: 1, values: 11 });
  });
});

describe('nestsTooDeep', () => {
  it('allows exactly maxNestingDepth levels and refuses one more', () => {
    const nested = (levels: number): unknown => JSON.parse(`${'{"a":'.repeat(levels)}1${'}'.repeat(levels)}`);
    expect(nestsTooDeep(nested(maxNestingDepth))).toBe(false);
    expect(nestsTooDeep(nested(maxNestingDepth + 1))).toBe(true);
  });
});
