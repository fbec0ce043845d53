import { frameHeaderLength } from '../../../../src/http2/frame-types.ts';
import { frame } from '../wire.ts';
import type { SeededRandom } from './seeded-random.ts';

/** A stream id a frame may name: ours, their neighbours, 0, one never opened, the largest. */
function streamId(random: SeededRandom, streams: readonly number[]): number {
  return random.pick([0, ...streams, ...streams, 2, 4, (streams.at(-1) ?? 1) + 2, 2 ** 31 - 1, random.below(2 ** 31)]);
}

/** A payload shaped for `type` now and then (a setting, an increment, a GOAWAY, HPACK-ish bytes), random bytes otherwise. */
function payload(random: SeededRandom, type: number): Buffer {
  if (random.chance(0.4)) return random.bytes(random.chance(0.02) ? random.pick([16_384, 16_385, 20_000]) : random.length(600));
  const word = (value: number): Buffer => {
    const out = Buffer.alloc(4);
    out.writeUInt32BE(value >>> 0);
    return out;
  };
  const edges = [0, 1, 65_535, 65_536, 2 ** 31 - 1, 2 ** 31, 2 ** 32 - 1];
  switch (type) {
    case 0x3:
    case 0x8:
      return word(random.chance(0.5) ? random.pick(edges) : random.below(2 ** 32));
    case 0x4: {
      const entries = random.between(0, 4);
      const out = Buffer.alloc(entries * 6);
      for (let index = 0; index < entries; index += 1) {
        out.writeUInt16BE(random.between(0, 10), index * 6);
        out.writeUInt32BE(random.chance(0.5) ? random.pick(edges) : random.below(2 ** 32), index * 6 + 2);
      }
      return out;
    }
    case 0x6:
      return random.bytes(random.chance(0.9) ? 8 : random.between(0, 12));
    case 0x7:
      return Buffer.concat([word(random.below(8)), word(random.below(16)), random.bytes(random.length(40))]);
    default: {
      // Header-block-like bytes: HPACK's first octets are where its decoder branches.
      const out = random.bytes(random.length(120));
      if (out.length > 0) out[0] = random.pick([0x82, 0x88, 0x3f, 0x40, 0x00, 0x10, 0x20, 0x7f, 0xff, 0xbe]);
      return out;
    }
  }
}

/** A frame of any type (the ten of RFC 9113 mostly, unknown ones too), flags and stream, its payload shaped or not. */
export function randomFrame(random: SeededRandom, streams: readonly number[]): Buffer {
  const type = random.chance(0.9) ? random.below(10) : random.between(10, 255);
  const flags = random.chance(0.7) ? random.pick([0, 0x1, 0x4, 0x5, 0x8, 0x20, 0x2d]) : random.below(256);
  return frame(type, flags, streamId(random, streams), payload(random, type));
}

/** Spoils a sequence of frames in one of a dozen ways; answers the new frames and what was done, for the failure message. */
export function mutate(random: SeededRandom, frames: readonly Buffer[], streams: readonly number[]): { frames: Buffer[]; done: string } {
  const out: Buffer[] = frames.map((bytes) => Buffer.from(bytes));
  if (out.length === 0) return { frames: [randomFrame(random, streams)], done: 'insert into nothing' };
  const at = random.below(out.length);
  const target: Buffer = out[at] as Buffer;
  switch (random.below(11)) {
    case 0:
      out.splice(at, 1);
      return { frames: out, done: `drop frame ${at}` };
    case 1:
      out.splice(at, 0, Buffer.from(target));
      return { frames: out, done: `duplicate frame ${at}` };
    case 2:
      if (at + 1 < out.length) [out[at], out[at + 1]] = [out[at + 1] as Buffer, target];
      return { frames: out, done: `swap frames ${at} and ${at + 1}` };
    case 3:
      out.splice(at, 0, randomFrame(random, streams));
      return { frames: out, done: `insert a random frame at ${at}` };
    case 4: {
      const bit = random.below(target.length * 8);
      target[bit >> 3] = (target[bit >> 3] as number) ^ (1 << (bit & 7));
      return { frames: out, done: `flip bit ${bit} of frame ${at}` };
    }
    case 5:
      target[3] = random.below(256);
      return { frames: out, done: `frame ${at} becomes type ${target[3]}` };
    case 6:
      target[4] = random.below(256);
      return { frames: out, done: `frame ${at} gets flags ${target[4]}` };
    case 7: {
      const id = streamId(random, streams);
      target.writeUInt32BE(id >>> 0, 5);
      return { frames: out, done: `frame ${at} moves to stream ${id}` };
    }
    case 8: {
      const length = Math.max(0, target.readUIntBE(0, 3) + random.pick([-9, -1, 1, 9, 1000, 16_384]));
      target.writeUIntBE(Math.min(length, 2 ** 24 - 1), 0, 3);
      return { frames: out, done: `frame ${at} claims ${length} bytes` };
    }
    case 9: {
      const keep = frameHeaderLength + random.below(Math.max(1, target.length - frameHeaderLength));
      out[at] = target.subarray(0, keep);
      return { frames: out, done: `frame ${at} cut to ${keep} bytes` };
    }
    default:
      random.bytes(target.length - frameHeaderLength).copy(target, frameHeaderLength);
      return { frames: out, done: `frame ${at}'s payload replaced with random bytes` };
  }
}
