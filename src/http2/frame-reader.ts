import { ConnectionError, ErrorCode } from './connection-error.ts';
import { frameHeaderLength } from './frame-types.ts';

/** Receives each whole frame; the payload is `buffer[start, end)`, valid only during the call. */
export interface FrameHandler {
  frame(type: number, flags: number, streamId: number, buffer: Buffer, start: number, end: number): void;
}

/**
 * Cuts the bytes read from the socket into frames. Frames wholly inside a
 * read are handed over in place; a frame cut across reads is copied into a
 * buffer of its own size as its bytes come, so that a peer trickling a frame
 * a byte at a time costs a copy of each byte once, not of the frame for
 * every byte. A frame longer than we allow is a connection error before any
 * of its payload is kept (RFC 9113, 4.2).
 */
export class FrameReader {
  readonly #handler: FrameHandler;
  readonly #maxFrameSize: number;
  /** The header of a frame cut off before its header was whole. */
  readonly #header = Buffer.alloc(frameHeaderLength);
  #headerHave = 0;
  /** A frame cut off after its header: header and payload, `#frameHave` bytes of it in. */
  #frame: Buffer | undefined;
  #frameHave = 0;

  constructor(handler: FrameHandler, maxFrameSize: number) {
    this.#handler = handler;
    this.#maxFrameSize = maxFrameSize;
  }

  push(chunk: Buffer): void {
    const total = chunk.length;
    let at = this.#headerHave > 0 || this.#frame !== undefined ? this.#finishCut(chunk) : 0;
    if (at < 0) return;
    while (total - at >= frameHeaderLength) {
      const length = this.#length(chunk, at);
      const end = at + frameHeaderLength + length;
      if (end > total) break;
      this.#dispatch(chunk, at, end);
      at = end;
    }
    if (at < total) this.#keepCut(chunk, at);
  }

  #length(buffer: Buffer, at: number): number {
    const length = ((buffer[at] as number) << 16) | ((buffer[at + 1] as number) << 8) | (buffer[at + 2] as number);
    if (length > this.#maxFrameSize) throw new ConnectionError(ErrorCode.frameSizeError, `a frame of ${length} bytes, over the ${this.#maxFrameSize} allowed`);
    return length;
  }

  #dispatch(buffer: Buffer, at: number, end: number): void {
    const streamId = buffer.readUInt32BE(at + 5) & 0x7fffffff;
    this.#handler.frame(buffer[at + 3] as number, buffer[at + 4] as number, streamId, buffer, at + frameHeaderLength, end);
  }

  /** Keeps the start of a frame that the read cut off. */
  #keepCut(chunk: Buffer, at: number): void {
    const available = chunk.length - at;
    if (available < frameHeaderLength) {
      chunk.copy(this.#header, 0, at);
      this.#headerHave = available;
      return;
    }
    const frame = Buffer.allocUnsafe(frameHeaderLength + this.#length(chunk, at));
    this.#frameHave = chunk.copy(frame, 0, at);
    this.#frame = frame;
  }

  /** Adds the start of `chunk` to the frame cut off before it; answers where the rest of `chunk` starts, or -1 if all of it went in. */
  #finishCut(chunk: Buffer): number {
    let at = 0;
    if (this.#frame === undefined) {
      const taken = chunk.copy(this.#header, this.#headerHave, 0, frameHeaderLength - this.#headerHave);
      this.#headerHave += taken;
      at = taken;
      if (this.#headerHave < frameHeaderLength) return -1;
      this.#headerHave = 0;
      this.#frame = Buffer.allocUnsafe(frameHeaderLength + this.#length(this.#header, 0));
      this.#frameHave = this.#header.copy(this.#frame);
    }
    const frame = this.#frame;
    const taken = chunk.copy(frame, this.#frameHave, at, at + frame.length - this.#frameHave);
    this.#frameHave += taken;
    at += taken;
    if (this.#frameHave < frame.length) return -1;
    this.#frame = undefined;
    this.#dispatch(frame, 0, frame.length);
    return at;
  }
}
