import { ConnectionError, ErrorCode } from './frame-reader.ts';

/** A whole header block and what its HEADERS frame said. */
export interface HeaderBlock {
  streamId: number;
  endStream: boolean;
  block: Buffer;
}

/**
 * Joins a header block sent as HEADERS and CONTINUATION frames (RFC 9113,
 * 4.3): nothing else may come between them, and a block longer than `limit`
 * is refused rather than held.
 */
export class HeaderBlockAssembler {
  readonly #limit: number;
  #partial: { streamId: number; endStream: boolean; fragments: Buffer[]; length: number } | undefined;

  constructor(limit: number) {
    this.#limit = limit;
  }

  /** The stream whose block is unfinished, if any: only its CONTINUATION may come next. */
  get pendingStream(): number | undefined {
    return this.#partial?.streamId;
  }

  /** Keeps the first fragment (a copy: the read buffer is reused) of a block that CONTINUATION frames will finish. */
  begin(streamId: number, endStream: boolean, buffer: Buffer, start: number, end: number): void {
    this.#partial = { streamId, endStream, fragments: [Buffer.from(buffer.subarray(start, end))], length: end - start };
  }

  /** Adds a CONTINUATION's fragment; answers the whole block once `endHeaders` says it is complete. */
  continue(streamId: number, endHeaders: boolean, buffer: Buffer, start: number, end: number): HeaderBlock | undefined {
    const partial = this.#partial;
    if (partial === undefined || partial.streamId !== streamId) throw new ConnectionError(ErrorCode.protocolError, 'CONTINUATION without a header block');
    partial.fragments.push(Buffer.from(buffer.subarray(start, end)));
    partial.length += end - start;
    if (partial.length > this.#limit) throw new ConnectionError(ErrorCode.enhanceYourCalm, `a header block of more than ${this.#limit} bytes`);
    if (!endHeaders) return undefined;
    this.#partial = undefined;
    return { streamId, endStream: partial.endStream, block: Buffer.concat(partial.fragments, partial.length) };
  }
}
