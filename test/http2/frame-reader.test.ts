import { describe, expect, it } from 'vitest';
import { ConnectionError, ErrorCode } from '../../src/http2/connection-error.ts';
import { FrameReader } from '../../src/http2/frame-reader.ts';
import { FrameWriter } from '../../src/http2/frame-writer.ts';

interface Seen {
  type: number;
  flags: number;
  streamId: number;
  payload: string;
}

function reader(maxFrameSize = 16_384): { reader: FrameReader; seen: Seen[] } {
  const seen: Seen[] = [];
  const frames = new FrameReader(
    {
      frame: (type, flags, streamId, buffer, start, end) => seen.push({ type, flags, streamId, payload: buffer.toString('latin1', start, end) }),
    },
    maxFrameSize,
  );
  return { reader: frames, seen };
}

function frames(): { bytes: Buffer; expected: Seen[] } {
  const writer = new FrameWriter();
  const expected: Seen[] = [];
  for (const [type, flags, streamId, payload] of [
    [1, 4, 1, 'headers'],
    [0, 1, 1, 'x'.repeat(5000)],
    [6, 0, 0, '12345678'],
    [0, 1, 3, ''],
  ] as const) {
    writer.reserve(9 + payload.length);
    writer.frameHeader(payload.length, type, flags, streamId);
    writer.latin1(payload);
    expected.push({ type, flags, streamId, payload });
  }
  return { bytes: Buffer.concat(writer.take()), expected };
}

describe('FrameReader', () => {
  it('hands over the same frames however the bytes are cut into reads', () => {
    const { bytes, expected } = frames();
    for (const cut of [1, 2, 7, 9, 10, 100, 4999, bytes.length]) {
      const { reader: frameReader, seen } = reader();
      for (let at = 0; at < bytes.length; at += cut) frameReader.push(bytes.subarray(at, at + cut));
      expect(seen).toEqual(expected);
    }
  });

  it('refuses a frame longer than it allows, before reading its payload', () => {
    const writer = new FrameWriter();
    writer.reserve(9);
    writer.frameHeader(16_385, 0, 0, 1);
    const { reader: frameReader, seen } = reader();
    const error = (() => {
      try {
        frameReader.push(Buffer.concat(writer.take()));
      } catch (caught) {
        return caught;
      }
      return undefined;
    })();
    expect(error).toBeInstanceOf(ConnectionError);
    expect((error as ConnectionError).code).toBe(ErrorCode.frameSizeError);
    expect(seen).toEqual([]);
  });
});

describe('FrameReader with a frame cut across reads', () => {
  it('refuses a frame longer than it allows as soon as its header is whole, however the header is cut', () => {
    const header = Buffer.from([0x00, 0x40, 0x01, 0x00, 0x00, 0, 0, 0, 1]);
    for (const cut of [1, 4, 8]) {
      const { reader: frameReader } = reader();
      frameReader.push(header.subarray(0, cut));
      let code: number | undefined;
      try {
        frameReader.push(header.subarray(cut));
      } catch (error) {
        code = (error as ConnectionError).code;
      }
      expect(code).toBe(ErrorCode.frameSizeError);
    }
  });

  it('hands over a frame of exactly the largest size allowed, trickled a byte a read, and the frame after it', () => {
    const writer = new FrameWriter();
    writer.reserve(2 * 9 + 16_384 + 3);
    writer.frameHeader(16_384, 0, 0, 1);
    writer.bytes(Buffer.alloc(16_384, 'd'), 0, 16_384);
    writer.frameHeader(3, 0, 1, 1);
    writer.latin1('end');
    const bytes = Buffer.concat(writer.take());
    const { reader: frameReader, seen } = reader();
    for (const byte of bytes) frameReader.push(Buffer.from([byte]));
    expect(seen.map((frame) => [frame.type, frame.flags, frame.streamId, frame.payload.length])).toEqual([
      [0, 0, 1, 16_384],
      [0, 1, 1, 3],
    ]);
    expect(seen[0]?.payload).toBe('d'.repeat(16_384));
  });
});
