import { ConnectionError, ErrorCode } from './connection-error.ts';

/** A whole header block and what its HEADERS frame said. */
export interface HeaderBlock {
  streamId: number;
  endStream: boolean;
  block: Buffer;
}

/** What a header block may take: its bytes, and its CONTINUATION frames. */
export interface HeaderBlockLimits {
  bytes: number;
  /** As nghttp2's default (`max_continuations`): a block a server cuts at its frame size needs far fewer. */
  continuations: number;
}

/**
 * Joins a header block sent as HEADERS and CONTINUATION frames (RFC 9113,
 * 4.3): nothing else may come between them. A block longer than its limit
 * in bytes, or in frames, is refused rather than held: counting bytes alone
 * would let a peer send empty CONTINUATION frames without end (the 2024
 * "CONTINUATION flood").
 */
export class HeaderBlockAssembler {
  readonly #limits: HeaderBlockLimits;
  #partial: { streamId: number; endStream: boolean; fragments: Buffer[]; length: number; continuations: number } | undefined;

  constructor(limits: HeaderBlockLimits) {
    this.#limits = limits;
  }

  /** The stream whose block is unfinished, if any: only its CONTINUATION may come next. */
  get pendingStream(): number | undefined {
    return this.#partial?.streamId;
  }

  /** Keeps the first fragment (a copy: the read buffer is reused) of a block that CONTINUATION frames will finish. */
  begin(streamId: number, endStream: boolean, buffer: Buffer, start: number, end: number): void {
    const fragments = end > start ? [Buffer.from(buffer.subarray(start, end))] : [];
    this.#partial = { streamId, endStream, fragments, length: end - start, continuations: 0 };
  }

  /** Adds a CONTINUATION's fragment; answers the whole block once `endHeaders` says it is complete. */
  continue(streamId: number, endHeaders: boolean, buffer: Buffer, start: number, end: number): HeaderBlock | undefined {
    const partial = this.#partial;
    if (partial === undefined || partial.streamId !== streamId) throw new ConnectionError(ErrorCode.protocolError, 'CONTINUATION without a header block');
    partial.continuations += 1;
    if (partial.continuations > this.#limits.continuations) {
      throw new ConnectionError(ErrorCode.enhanceYourCalm, `a header block in more than ${this.#limits.continuations} CONTINUATION frames`);
    }
    partial.length += end - start;
    if (partial.length > this.#limits.bytes) throw new ConnectionError(ErrorCode.enhanceYourCalm, `a header block of more than ${this.#limits.bytes} bytes`);
    if (end > start) partial.fragments.push(Buffer.from(buffer.subarray(start, end)));
    if (!endHeaders) return undefined;
    this.#partial = undefined;
    return { streamId, endStream: partial.endStream, block: Buffer.concat(partial.fragments, partial.length) };
  }
}
