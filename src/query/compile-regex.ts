import { RE2JS, RE2JSException, RE2JSSyntaxException } from 're2js';
import { ErrorCode, fail } from '../core/errors.ts';
import type { RegexMatcher } from './query.ts';

/** The `$options` flags accepted, as RE2JS flags. */
const flagBits: Readonly<Record<string, number>> = {
  i: RE2JS.CASE_INSENSITIVE,
  m: RE2JS.MULTILINE,
  s: RE2JS.DOTALL,
};

/**
 * Compiles a `$regex` with its `$options` flags (i, m, s) for the RE2 engine,
 * which matches in time linear in the input: a client-chosen pattern such as
 * `(a+)+$` cannot stall the process. The syntax is RE2's; backreferences and
 * lookaround have no linear-time evaluation and are refused. Throws
 * `HeraldError` code 1 (400) naming the field and what is wrong.
 */
export function compileRegex(name: string, source: string, flags: string): RegexMatcher {
  let bits = 0;
  for (const flag of flags) {
    const bit = flagBits[flag];
    if (bit === undefined) fail(ErrorCode.internal, `$options on ${name} has the unsupported flag ${flag}; use i, m or s`);
    bits |= bit;
  }
  let regex: RE2JS;
  try {
    regex = RE2JS.compile(source, bits);
  } catch (error) {
    if (!(error instanceof RE2JSException)) throw error;
    const construct = error instanceof RE2JSSyntaxException ? unsupportedConstruct(error.input ?? '') : null;
    if (construct !== null) {
      fail(ErrorCode.internal, `$regex on ${name} uses ${construct}, which is not supported: patterns are RE2 syntax, without backreferences or lookaround`);
    }
    fail(ErrorCode.internal, `$regex on ${name} is not a valid regular expression (RE2 syntax): ${describe(error)}`);
  }
  return { test: (text) => regex.test(text) };
}

/** Names the construct RE2 stopped at when it is one RE2 leaves out by design. */
function unsupportedConstruct(input: string): string | null {
  const backreference = /^\\[1-9]/.exec(input);
  if (backreference !== null) return `a backreference (${backreference[0]})`;
  if (input.startsWith('\\k')) return 'a named backreference (\\k<…>)';
  if (input.startsWith('(?=') || input.startsWith('(?!')) return `a lookahead (${input.slice(0, 3)}…)`;
  if (input.startsWith('(?<=') || input.startsWith('(?<!')) return `a lookbehind (${input.slice(0, 4)}…)`;
  return null;
}

function describe(error: RE2JSException): string {
  if (!(error instanceof RE2JSSyntaxException)) return error.message;
  return error.input === null ? error.getDescription() : `${error.getDescription()} at ${error.input}`;
}
