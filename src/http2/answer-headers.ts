import { ConnectionError, ErrorCode } from './connection-error.ts';
import type { HeaderList } from './hpack-decoder.ts';

/**
 * The status of an answer's header block (RFC 9113, 8.3.2): `:status` comes
 * first and once, as three digits from 100 to 599, and no other
 * pseudo-header follows. Anything else is a malformed answer, which never
 * counts as one: ` 200`, `2e2` or `200.0` would each read as 200 to
 * `Number`. 101 is not an HTTP/2 status (8.6).
 */
export function answerStatus(headers: HeaderList, streamId: number): number {
  const value = headers[0] === ':status' ? headers[1] : undefined;
  if (value === undefined || value.length !== 3) throw malformed(streamId, 'without a valid :status');
  const hundreds = value.charCodeAt(0) - 48;
  const tens = value.charCodeAt(1) - 48;
  const units = value.charCodeAt(2) - 48;
  if (hundreds < 1 || hundreds > 5 || tens < 0 || tens > 9 || units < 0 || units > 9) throw malformed(streamId, 'without a valid :status');
  const status = hundreds * 100 + tens * 10 + units;
  if (status === 101) throw malformed(streamId, 'with status 101');
  checkNoPseudoHeaders(headers, 2, streamId);
  return status;
}

/** Trailers carry no pseudo-header (RFC 9113, 8.1). */
export function checkTrailers(headers: HeaderList, streamId: number): void {
  checkNoPseudoHeaders(headers, 0, streamId);
}

function checkNoPseudoHeaders(headers: HeaderList, from: number, streamId: number): void {
  for (let index = from; index < headers.length; index += 2) {
    if ((headers[index] as string).charCodeAt(0) === 0x3a) throw malformed(streamId, `with pseudo-header ${headers[index] as string} out of place`);
  }
}

function malformed(streamId: number, what: string): ConnectionError {
  return new ConnectionError(ErrorCode.protocolError, `an answer ${what} on stream ${streamId}`);
}
