import { describe, expect, it } from 'vitest';
import { emptyPushCounts, encodeSliceReport, maxReasonKeys, parsePushCounts, parseSliceReport, withTotals } from '../../src/store/push-record-totals.ts';

const manyReasons = (count: number, prefix: string): Record<string, number> => Object.fromEntries(Array.from({ length: count }, (_, n) => [`${prefix}${n}`, 1]));

describe('push record totals', () => {
  it('reads a row written with unbounded reasons as at most 128 keys, the rest added to Other', () => {
    const counts = parsePushCounts(JSON.stringify({ errors: 500, errorReasons: { ...manyReasons(500, 'Word'), Other: 2 } }));
    expect(Object.keys(counts.errorReasons)).toHaveLength(maxReasonKeys);
    expect(Object.values(counts.errorReasons).reduce((sum, count) => sum + count, 0)).toBe(502);
    expect(counts.errorReasons.Word0).toBe(1);
  });

  it('keeps the sum over rows within 128 keys, still adding to keys it holds', () => {
    const row = (reasons: Record<string, number>) => ({ counts: { ...emptyPushCounts(), errorReasons: reasons }, final: true });
    const total = withTotals({ objectId: 'p', createdAt: '', updatedAt: '', status: 'in-queue' }, [row(manyReasons(100, 'A')), row(manyReasons(100, 'B')), row({ A0: 5, Unregistered: 3 })]);
    const reasons = total.errorReasons as Record<string, number>;
    expect(Object.keys(reasons)).toHaveLength(maxReasonKeys);
    expect(reasons.A0).toBe(6);
    expect(reasons.Other).toBe(100 + 100 + 3 - (maxReasonKeys - 1));
  });

  it('adds the counts of a word that is a property of every object, such as constructor, as a number', () => {
    expect(parsePushCounts('{"errorReasons":{"constructor":2,"toString":1}}').errorReasons).toEqual({ constructor: 2, toString: 1 });
  });

  it('stores the installations a slice has yet to remove beside its counts, and drops malformed ones when read', () => {
    const counts = { ...emptyPushCounts(), devices: 2, invalidTokens: 2, errorReasons: { Unregistered: 2 } };
    const unregistered = [{ objectId: 'a', updatedAt: '2026-11-01T00:00:00.000Z' }, { objectId: 'b"\\', updatedAt: '2026-11-02T00:00:00.000Z' }];
    const stored = encodeSliceReport({ sliceKey: 't/0', counts, final: true, next: null, unregistered });
    expect(parseSliceReport(stored, true)).toEqual({ final: true, next: null, counts, unregistered });
    expect(parsePushCounts(stored)).toEqual(counts);
    expect(encodeSliceReport({ sliceKey: 't/0', counts, final: true, unregistered: [] })).not.toContain('unregistered');
    const odd = JSON.stringify({ ...counts, next: 'x', unregistered: [['c', '2026-11-03T00:00:00.000Z'], ['d'], 'e', [1, 2], null, ['f', null]] });
    expect(parseSliceReport(odd, false)).toEqual({ final: false, next: 'x', counts, unregistered: [{ objectId: 'c', updatedAt: '2026-11-03T00:00:00.000Z' }] });
    expect(parseSliceReport(JSON.stringify({ ...counts, unregistered: { c: 1 } }), false).unregistered).toEqual([]);
  });
});
