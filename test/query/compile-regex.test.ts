import { describe, expect, it } from 'vitest';
import { ErrorCode, HeraldError } from '../../src/core/errors.ts';
import { compileRegex } from '../../src/query/compile-regex.ts';
import { matches } from '../../src/query/match.ts';
import { parseWhere } from '../../src/query/parse-query.ts';
import { captureError } from '../support/capture-error.ts';

const length = 50_000;

describe('compileRegex', () => {
  // A backtracking engine takes exponential time on each of these; the
  // test would hang rather than fail if backtracking came back.
  it.each<[string, string, string, boolean]>([
    ['(a+)+$ over a run of a then a mismatch', '(a+)+$', `${'a'.repeat(length)}!`, false],
    ['(a+)+$ over text ending in a run of a', '(a+)+$', `!${'a'.repeat(length)}`, true],
    ['^(a+)+$ over a run of a then a mismatch', '^(a+)+$', `${'a'.repeat(length)}!`, false],
    ['^(a+)+$ over a run of a only', '^(a+)+$', 'a'.repeat(length), true],
    ['(x+x+)+y over x without y', '(x+x+)+y', 'x'.repeat(length), false],
    ['(x+x+)+y over x ending in y', '(x+x+)+y', `${'x'.repeat(length)}y`, true],
    ['(.*a){20} over text without a', '(.*a){20}', 'b'.repeat(length), false],
    ['(.*a){20} over text with only 19 a', '(.*a){20}', `${'ba'.repeat(19)}${'b'.repeat(length)}`, false],
    ['(.*a){20} over text with 20 a', '(.*a){20}', `${'b'.repeat(length)}${'a'.repeat(20)}`, true],
    ['(a|aa)+$ over a run of a then a mismatch', '^(a|aa)+$', `${'a'.repeat(length)}b`, false],
  ])('answers %s without backtracking', (_title, source, text, expected) => {
    expect(compileRegex('name', source, '').test(text)).toBe(expected);
  });

  it('answers a catastrophic pattern through a where condition on a long field', () => {
    const where = parseWhere({ name: { $regex: '^(a+)+$' } });
    expect(matches(where, { name: `${'a'.repeat(length)}!` })).toBe(false);
    expect(matches(where, { name: ['b', 'a'.repeat(length)] })).toBe(true);
  });

  it.each<[string, string, string, string, boolean]>([
    ['a pattern anywhere in the text', 'b+', '', 'abbc', true],
    ['case-sensitively by default', '^ann$', '', 'Ann', false],
    ['case-insensitively with i', '^ann$', 'i', 'Ann', true],
    ['^ only at the start of the text by default', '^b', '', 'a\nb', false],
    ['^ at each line start with m', '^b', 'm', 'a\nb', true],
    ['$ only at the end of the text by default', 'a$', '', 'a\nb', false],
    ['$ at each line end with m', 'a$', 'm', 'a\nb', true],
    ['. without a newline by default', 'a.b', '', 'a\nb', false],
    ['. with a newline with s', 'a.b', 's', 'a\nb', true],
    ['several flags at once', '^B.C$', 'ims', 'a\nb\nc', true],
    ['\\Q…\\E quoting, as Parse SDKs send for startsWith', '^\\Qa.b\\E', '', 'a.bc', true],
    ['\\Q…\\E quoting, literally', '^\\Qa.b\\E', '', 'axbc', false],
    ['character classes and escapes', '^\\d{3}-\\w+\\s?$', '', '123-abc', true],
    ['a named group', '^(?<word>\\w+)$', '', 'word', true],
    ['characters outside the BMP as one character', '^.$', '', '😀', true],
  ])('matches %s', (_title, source, flags, text, expected) => {
    expect(compileRegex('name', source, flags).test(text)).toBe(expected);
  });

  it.each<[string, string, RegExp]>([
    ['a backreference', '(a)\\1', /uses a backreference \(\\1\)/],
    ['a named backreference', '(?<x>a)\\k<x>', /uses a named backreference/],
    ['a lookahead', '^(?=.*\\d)', /uses a lookahead \(\(\?=…\)/],
    ['a negative lookahead', 'a(?!b)', /uses a lookahead \(\(\?!…\)/],
    ['a lookbehind', '(?<=a)b', /uses a lookbehind \(\(\?<=…\)/],
    ['a negative lookbehind', '(?<!a)b', /uses a lookbehind \(\(\?<!…\)/],
    ['a possessive quantifier', 'a++', /not a valid regular expression.*\+\+/],
    ['an unbalanced group', 'a(b', /not a valid regular expression.*missing closing \)/],
    ['a repeat count over 1000', 'a{1001}', /not a valid regular expression.*invalid repeat count/],
  ])('refuses %s with code 1 and status 400', (_title, source, message) => {
    const error = captureError(() => compileRegex('name', source, ''));
    expect(error).toBeInstanceOf(HeraldError);
    expect(error).toMatchObject({ code: ErrorCode.internal, status: 400 });
    expect((error as HeraldError).message).toMatch(/^\$regex on name /);
    expect((error as HeraldError).message).toMatch(message);
  });

  it('refuses a flag other than i, m and s', () => {
    expect(captureError(() => compileRegex('name', 'a', 'g'))).toMatchObject({ code: ErrorCode.internal, message: expect.stringMatching(/unsupported flag g/) });
  });

  it('does not treat an escaped backslash before a digit as a backreference', () => {
    expect(compileRegex('name', '^\\\\1$', '').test('\\1')).toBe(true);
  });
});
