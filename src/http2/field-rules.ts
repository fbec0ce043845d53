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

/** Refuses a field value with NUL, CR or LF, or with white space at either end (RFC 9113, 8.2.1). */
export function checkFieldValue(value: string): void {
  const last = value.length - 1;
  for (let index = 0; index <= last; index += 1) {
    const code = value.charCodeAt(index);
    if (code === 0x00 || code === 0x0a || code === 0x0d) throw malformed('a field value with NUL, CR or LF');
  }
  if (last >= 0 && (isBlank(value.charCodeAt(0)) || isBlank(value.charCodeAt(last)))) throw malformed('a field value with white space at an end');
}

function isBlank(code: number): boolean {
  return code === 0x20 || code === 0x09;
}

function malformed(what: string): ConnectionError {
  return new ConnectionError(ErrorCode.protocolError, `a malformed answer: ${what}`);
}
