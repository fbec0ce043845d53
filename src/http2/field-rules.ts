import { ConnectionError, ErrorCode } from './connection-error.ts';

/**
 * Refuses a field name HTTP/2 does not allow (RFC 9113, 8.2.1): empty, or
 * with a character at or below space, an upper-case letter, or DEL and
 * above. A pseudo-header's leading colon is allowed here; which
 * pseudo-headers an answer may carry is checked on the whole list.
 */
export function checkFieldName(name: string): void {
  if (name.length === 0) throw malformed('an empty field name');
  for (let index = 0; index < name.length; index += 1) {
    const code = name.charCodeAt(index);
    if (code <= 0x20 || (code >= 0x41 && code <= 0x5a) || code >= 0x7f) throw malformed(`field name ${JSON.stringify(name)}`);
  }
}

/** What a field value may not hold: NUL, CR or LF anywhere, white space at either end. A regular expression: a third of a loop's time on every answer's values. */
const forbiddenInValue = /[\0\r\n]|^[ \t]|[ \t]$/;

/** Refuses a field value with NUL, CR or LF, or with white space at either end (RFC 9113, 8.2.1). */
export function checkFieldValue(value: string): void {
  if (forbiddenInValue.test(value)) throw malformed('a field value with NUL, CR or LF, or white space at an end');
}

function malformed(what: string): ConnectionError {
  return new ConnectionError(ErrorCode.protocolError, `a malformed answer: ${what}`);
}
