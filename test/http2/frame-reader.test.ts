import { describe, expect, it } from 'vitest';
import { ConnectionError, ErrorCode, FrameReader } from '../../src/http2/frame-reader.ts';
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
