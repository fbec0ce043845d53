import { frameHeaderLength } from './frame-writer.ts';

/** Error codes (RFC 9113, 7). */
export const ErrorCode = {
  noError: 0x0,
  protocolError: 0x1,
  internalError: 0x2,
  flowControlError: 0x3,
  settingsTimeout: 0x4,
  streamClosed: 0x5,
  frameSizeError: 0x6,
  refusedStream: 0x7,
  cancel: 0x8,
  compressionError: 0x9,
  connectError: 0xa,
  enhanceYourCalm: 0xb,
  inadequateSecurity: 0xc,
  http11Required: 0xd,
} as const;

/** A breach of the protocol by the peer: the connection ends with a GOAWAY carrying `code`. */
export class ConnectionError extends Error {
  readonly code: number;

  constructor(code: number, message: string) {
    super(message);
    this.code = code;
  }
}

/** Receives each whole frame; the payload is `buffer[start, end)`, valid only during the call. */
export interface FrameHandler {
  frame(type: number, flags: number, streamId: number, buffer: Buffer, start: number, end: number): void;
}

/**
 * Cuts the bytes read from the socket into frames. A frame split across
 * reads waits for its rest; frames longer than we allow are a connection
 * error (RFC 9113, 4.2).
 */
export class FrameReader {
  readonly #handler: FrameHandler;
  readonly #maxFrameSize: number;
  #rest: Buffer | undefined;

  constructor(handler: FrameHandler, maxFrameSize: number) {
    this.#handler = handler;
    this.#maxFrameSize = maxFrameSize;
  }

  push(chunk: Buffer): void {
    let buffer = chunk;
    if (this.#rest !== undefined) {
      buffer = Buffer.concat([this.#rest, chunk]);
      this.#rest = undefined;
    }
    const total = buffer.length;
    let at = 0;
    while (total - at >= frameHeaderLength) {
      const length = ((buffer[at] as number) << 16) | ((buffer[at + 1] as number) << 8) | (buffer[at + 2] as number);
      if (length > this.#maxFrameSize) throw new ConnectionError(ErrorCode.frameSizeError, `a frame of ${length} bytes, over the ${this.#maxFrameSize} allowed`);
      const end = at + frameHeaderLength + length;
      if (end > total) break;
      const streamId = buffer.readUInt32BE(at + 5) & 0x7fffffff;
      this.#handler.frame(buffer[at + 3] as number, buffer[at + 4] as number, streamId, buffer, at + frameHeaderLength, end);
      at = end;
    }
    if (at < total) this.#rest = buffer.subarray(at);
  }
}
