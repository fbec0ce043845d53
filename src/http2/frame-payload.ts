import { ConnectionError, ErrorCode } from './connection-error.ts';
import { FrameFlag } from './frame-types.ts';

/** Where the content of a DATA or HEADERS frame lies in its payload, once padding (and HEADERS's priority fields) are set aside. */
export interface FrameContent {
  from: number;
  to: number;
}

/** The data of a DATA frame `buffer[start, end)`: padding is refused when it does not fit the frame (RFC 9113, 6.1). */
export function dataContent(flags: number, buffer: Buffer, start: number, end: number): FrameContent {
  if ((flags & FrameFlag.padded) === 0) return { from: start, to: end };
  if (end === start) throw new ConnectionError(ErrorCode.frameSizeError, 'padded DATA without its pad length');
  const pad = buffer[start] as number;
  if (pad >= end - start) throw new ConnectionError(ErrorCode.protocolError, 'DATA padding longer than the frame');
  return { from: start + 1, to: end - pad };
}

/** The header block fragment of a HEADERS frame `buffer[start, end)`, without padding and priority fields (RFC 9113, 6.2). */
export function headersContent(flags: number, buffer: Buffer, start: number, end: number): FrameContent {
  let from = start;
  let to = end;
  if (flags & FrameFlag.padded) {
    if (end === start) throw new ConnectionError(ErrorCode.frameSizeError, 'padded HEADERS without its pad length');
    const pad = buffer[from] as number;
    from += 1;
    to -= pad;
  }
  if (flags & FrameFlag.priority) from += 5;
  if (from > to) throw new ConnectionError(ErrorCode.protocolError, 'HEADERS padding or priority longer than the frame');
  return { from, to };
}
