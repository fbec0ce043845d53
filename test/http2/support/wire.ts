import { FrameFlag, frameHeaderLength, FrameType } from '../../../src/http2/frame-types.ts';

/**
 * Frames and HPACK as a hostile server writes them, byte by byte, without
 * Herald's own writer or encoder: what the tests send must not depend on the
 * code under test.
 */

/** One frame as the wire has it; the length is the payload's unless `length` lies. */
export function frame(type: number, flags: number, streamId: number, payload: Buffer = Buffer.alloc(0), length = payload.length): Buffer {
  const header = Buffer.alloc(frameHeaderLength);
  header.writeUIntBE(length, 0, 3);
  header[3] = type;
  header[4] = flags;
  header.writeUInt32BE(streamId >>> 0, 5);
  return Buffer.concat([header, payload]);
}

export function settingsFrame(entries: readonly (readonly [number, number])[] = []): Buffer {
  const payload = Buffer.alloc(entries.length * 6);
  entries.forEach(([id, value], index) => {
    payload.writeUInt16BE(id, index * 6);
    payload.writeUInt32BE(value, index * 6 + 2);
  });
  return frame(FrameType.settings, 0, 0, payload);
}

export const settingsAck = frame(FrameType.settings, FrameFlag.ack, 0);

export function pingFrame(payload: Buffer = Buffer.alloc(8), ack = false): Buffer {
  return frame(FrameType.ping, ack ? FrameFlag.ack : 0, 0, payload);
}

export function goAwayFrame(lastStreamId: number, code: number, debug = ''): Buffer {
  const payload = Buffer.alloc(8 + Buffer.byteLength(debug));
  payload.writeUInt32BE(lastStreamId, 0);
  payload.writeUInt32BE(code, 4);
  payload.write(debug, 8);
  return frame(FrameType.goaway, 0, 0, payload);
}

export function rstStreamFrame(streamId: number, code: number): Buffer {
  const payload = Buffer.alloc(4);
  payload.writeUInt32BE(code);
  return frame(FrameType.rstStream, 0, streamId, payload);
}

export function windowUpdateFrame(streamId: number, increment: number): Buffer {
  const payload = Buffer.alloc(4);
  payload.writeUInt32BE(increment >>> 0);
  return frame(FrameType.windowUpdate, 0, streamId, payload);
}

export function dataFrame(streamId: number, payload: Buffer | string, endStream = false): Buffer {
  return frame(FrameType.data, endStream ? FrameFlag.endStream : 0, streamId, Buffer.from(payload));
}

/** A HEADERS frame carrying `block`; it ends the stream unless told not to, and the block unless `endHeaders` is false. */
export function headersFrame(streamId: number, block: Buffer, options: { endStream?: boolean; endHeaders?: boolean } = {}): Buffer {
  const flags = (options.endStream ?? true ? FrameFlag.endStream : 0) | (options.endHeaders ?? true ? FrameFlag.endHeaders : 0);
  return frame(FrameType.headers, flags, streamId, block);
}

export function continuationFrame(streamId: number, fragment: Buffer, endHeaders = false): Buffer {
  return frame(FrameType.continuation, endHeaders ? FrameFlag.endHeaders : 0, streamId, fragment);
}

/** An HPACK integer (RFC 7541, 5.1) after `flags` in a prefix of `prefixBits`. */
export function hpackInteger(flags: number, prefixBits: number, value: number): Buffer {
  const limit = (1 << prefixBits) - 1;
  if (value < limit) return Buffer.from([flags | value]);
  const bytes = [flags | limit];
  let rest = value - limit;
  while (rest >= 128) {
    bytes.push((rest % 128) | 0x80);
    rest = Math.floor(rest / 128);
  }
  bytes.push(rest);
  return Buffer.from(bytes);
}

/** A raw (not Huffman-coded) HPACK string. */
export function hpackString(value: string): Buffer {
  const octets = Buffer.from(value, 'latin1');
  return Buffer.concat([hpackInteger(0, 7, octets.length), octets]);
}

/** A field as a literal without indexing: a new name, or the static table's name at `nameIndex`. */
export function literalField(name: string | number, value: string): Buffer {
  if (typeof name === 'number') return Buffer.concat([hpackInteger(0x00, 4, name), hpackString(value)]);
  return Buffer.concat([Buffer.from([0x00]), hpackString(name), hpackString(value)]);
}

/** A field as a literal that enters the dynamic table. */
export function indexedLiteralField(name: string, value: string): Buffer {
  return Buffer.concat([Buffer.from([0x40]), hpackString(name), hpackString(value)]);
}

/** `:status` as a literal without indexing (static name index 8), whatever the value. */
export function statusField(status: number | string): Buffer {
  return literalField(8, String(status));
}

/** A header block: `:status` then fields as `[name, value]` pairs, all literals. */
export function answerBlock(status: number | string, fields: readonly (readonly [string, string])[] = []): Buffer {
  return Buffer.concat([statusField(status), ...fields.map(([name, value]) => literalField(name, value))]);
}

/** A frame the client sent. */
export interface WireFrame {
  type: number;
  flags: number;
  streamId: number;
  payload: Buffer;
}

const clientPreface = Buffer.from('PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n', 'latin1');

/** Cuts what a client sends into frames, after checking its connection preface. */
export class WireReader {
  #pending = Buffer.alloc(0);
  #prefaceSeen = false;

  push(chunk: Buffer): WireFrame[] {
    this.#pending = Buffer.concat([this.#pending, chunk]);
    if (!this.#prefaceSeen) {
      if (this.#pending.length < clientPreface.length) return [];
      if (!this.#pending.subarray(0, clientPreface.length).equals(clientPreface)) throw new Error('the client did not start with the HTTP/2 preface');
      this.#pending = this.#pending.subarray(clientPreface.length);
      this.#prefaceSeen = true;
    }
    const frames: WireFrame[] = [];
    while (this.#pending.length >= frameHeaderLength) {
      const length = this.#pending.readUIntBE(0, 3);
      if (this.#pending.length < frameHeaderLength + length) break;
      frames.push({
        type: this.#pending[3] as number,
        flags: this.#pending[4] as number,
        streamId: this.#pending.readUInt32BE(5) & 0x7fffffff,
        payload: Buffer.from(this.#pending.subarray(frameHeaderLength, frameHeaderLength + length)),
      });
      this.#pending = this.#pending.subarray(frameHeaderLength + length);
    }
    return frames;
  }
}
