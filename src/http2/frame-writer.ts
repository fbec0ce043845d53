import { FrameFlag, frameHeaderLength, FrameType } from './frame-types.ts';
import type { HpackSink } from './hpack-encoder.ts';

/** The slab frames are written into; a bigger one is taken for anything that does not fit. */
const slabSize = 64 * 1024;

/**
 * Frames waiting to be written to the socket, built in place in a slab so
 * that a burst of requests leaves as one write. A slab region handed to the
 * socket is never written again: the next frames go after it, or into a new
 * slab.
 */
export class FrameWriter implements HpackSink {
  #slab = Buffer.allocUnsafe(slabSize);
  #at = 0;
  /** Where the part not yet taken starts. */
  #from = 0;
  /** Full slabs not yet taken. */
  #full: Buffer[] = [];

  /** Whether anything waits to be taken. */
  get pending(): boolean {
    return this.#at > this.#from || this.#full.length > 0;
  }

  /** Makes room for `length` more bytes in one piece. */
  reserve(length: number): void {
    if (this.#at + length <= this.#slab.length) return;
    if (this.#at > this.#from) this.#full.push(this.#slab.subarray(this.#from, this.#at));
    this.#slab = Buffer.allocUnsafe(Math.max(slabSize, length));
    this.#at = 0;
    this.#from = 0;
  }

  /** Writes a frame header; answers where its length goes, for `patchLength`. */
  frameHeader(length: number, type: number, flags: number, streamId: number): number {
    const slab = this.#slab;
    const at = this.#at;
    slab[at] = length >>> 16;
    slab[at + 1] = (length >>> 8) & 0xff;
    slab[at + 2] = length & 0xff;
    slab[at + 3] = type;
    slab[at + 4] = flags;
    slab.writeUInt32BE(streamId, at + 5);
    this.#at = at + frameHeaderLength;
    return at;
  }

  /** Sets the length of the frame whose header is at `headerAt` to what was written after it. */
  patchLength(headerAt: number): number {
    const length = this.#at - headerAt - frameHeaderLength;
    const slab = this.#slab;
    slab[headerAt] = length >>> 16;
    slab[headerAt + 1] = (length >>> 8) & 0xff;
    slab[headerAt + 2] = length & 0xff;
    return length;
  }

  byte(value: number): void {
    this.#slab[this.#at++] = value;
  }

  uint32(value: number): void {
    this.#slab.writeUInt32BE(value, this.#at);
    this.#at += 4;
  }

  latin1(value: string): void {
    this.#at += this.#slab.write(value, this.#at, 'latin1');
  }

  bytes(source: Uint8Array, start: number, end: number): void {
    this.#slab.set(source.subarray(start, end), this.#at);
    this.#at += end - start;
  }

  /** A SETTINGS frame with `entries` (identifier, value), or its ack without any. */
  settings(entries: readonly (readonly [number, number])[], ack = false): void {
    this.reserve(frameHeaderLength + entries.length * 6);
    this.frameHeader(entries.length * 6, FrameType.settings, ack ? FrameFlag.ack : 0, 0);
    for (const [id, value] of entries) {
      this.#slab.writeUInt16BE(id, this.#at);
      this.#at += 2;
      this.uint32(value);
    }
  }

  /** A PING with eight bytes of `payload` from `start` (zeros without one), or the ack of the peer's. */
  ping(ack: boolean, payload?: Buffer, start = 0): void {
    this.reserve(frameHeaderLength + 8);
    this.frameHeader(8, FrameType.ping, ack ? FrameFlag.ack : 0, 0);
    if (payload === undefined) {
      this.uint32(0);
      this.uint32(0);
    } else {
      this.bytes(payload, start, start + 8);
    }
  }

  rstStream(streamId: number, code: number): void {
    this.reserve(frameHeaderLength + 4);
    this.frameHeader(4, FrameType.rstStream, 0, streamId);
    this.uint32(code);
  }

  windowUpdate(streamId: number, increment: number): void {
    this.reserve(frameHeaderLength + 4);
    this.frameHeader(4, FrameType.windowUpdate, 0, streamId);
    this.uint32(increment);
  }

  goAway(lastStreamId: number, code: number): void {
    this.reserve(frameHeaderLength + 8);
    this.frameHeader(8, FrameType.goaway, 0, 0);
    this.uint32(lastStreamId);
    this.uint32(code);
  }

  /** A DATA frame of `source[start, end)`. */
  data(streamId: number, source: Uint8Array, start: number, end: number, endStream: boolean): void {
    this.reserve(frameHeaderLength + end - start);
    this.frameHeader(end - start, FrameType.data, endStream ? FrameFlag.endStream : 0, streamId);
    this.bytes(source, start, end);
  }

  /** Everything written since the last take, in order. */
  take(): Buffer[] {
    const chunks = this.#full;
    if (this.#at > this.#from) chunks.push(this.#slab.subarray(this.#from, this.#at));
    this.#from = this.#at;
    this.#full = [];
    return chunks;
  }
}
