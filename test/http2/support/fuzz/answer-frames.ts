import { FrameFlag, FrameType } from '../../../../src/http2/frame-types.ts';
import { continuationFrame, frame, goAwayFrame, pingFrame, settingsFrame, windowUpdateFrame } from '../wire.ts';
import { FuzzHpackWriter } from './hpack-writer.ts';
import type { SeededRandom } from './seeded-random.ts';

/** What a stream's answer should read as, when nothing in its frames was spoilt. */
export interface ExpectedAnswer {
  status: number;
  /** The body as the client keeps it: none for a 200. */
  body: Buffer | undefined;
}

const statuses = [200, 200, 200, 204, 400, 403, 404, 410, 413, 429, 500, 503, 599];
const names = ['apns-id', 'apns-unique-id', 'retry-after', 'content-type', 'content-length', 'date', 'server', 'x-request-id', 'x-fuzz'];
const tokenCharacters = "abcdefghijklmnopqrstuvwxyz0123456789-!#$%&'*+.^_`|~";
const valueCharacters = 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789 -_.,;:=/"{}[]';

function text(random: SeededRandom, characters: string, length: number): string {
  let out = '';
  for (let index = 0; index < length; index += 1) out += characters[random.below(characters.length)];
  return out;
}

function fieldName(random: SeededRandom): string {
  return random.chance(0.7) ? random.pick(names) : `x-${text(random, tokenCharacters, random.between(1, 20))}`;
}

function fieldValue(random: SeededRandom): string {
  const length = random.chance(0.05) ? random.between(200, 3000) : random.length(60);
  // No white space at either end (RFC 9113, 8.2.1).
  return text(random, valueCharacters, length).trim();
}

/** A header block cut into HEADERS and CONTINUATION frames (at most 8), perhaps padded and prioritised. */
function headerFrames(random: SeededRandom, stream: number, block: Buffer, endStream: boolean): Buffer[] {
  // Each frame within the 16 KiB a client allows, and at most 8 CONTINUATION frames.
  const pieces = Math.max(random.chance(0.8) ? 1 : random.between(2, 9), Math.ceil(block.length / 16_000));
  const cut = Math.ceil(block.length / pieces) || 1;
  const fragments = Array.from({ length: pieces }, (_, index) => block.subarray(index * cut, (index + 1) * cut));
  const flags = (endStream ? FrameFlag.endStream : 0) | (pieces === 1 ? FrameFlag.endHeaders : 0);
  const first = fragments[0] as Buffer;
  const frames: Buffer[] = [];
  if (random.chance(0.15)) {
    const pad = random.below(20);
    const priority = random.chance(0.5);
    const head = priority ? Buffer.from([pad, 0, 0, 0, 0, random.below(256)]) : Buffer.from([pad]);
    frames.push(frame(FrameType.headers, flags | FrameFlag.padded | (priority ? FrameFlag.priority : 0), stream, Buffer.concat([head, first, Buffer.alloc(pad)])));
  } else {
    frames.push(frame(FrameType.headers, flags, stream, first));
  }
  for (let index = 1; index < pieces; index += 1) frames.push(continuationFrame(stream, fragments[index] as Buffer, index === pieces - 1));
  return frames;
}

function dataFrames(random: SeededRandom, stream: number, body: Buffer, endStream: boolean): Buffer[] {
  const frames: Buffer[] = [];
  const pieces = Math.max(random.between(1, 3), Math.ceil(body.length / 16_000));
  const cut = Math.ceil(body.length / pieces) || 1;
  for (let index = 0; index < pieces; index += 1) {
    const piece = body.subarray(index * cut, (index + 1) * cut);
    const last = index === pieces - 1;
    const flags = last && endStream ? FrameFlag.endStream : 0;
    if (random.chance(0.2)) {
      const pad = random.below(30);
      frames.push(frame(FrameType.data, flags | FrameFlag.padded, stream, Buffer.concat([Buffer.from([pad]), piece, Buffer.alloc(pad)])));
    } else {
      frames.push(frame(FrameType.data, flags, stream, piece));
    }
  }
  return frames;
}

/** One of the frames a server may send between others, each legal and harmless in small numbers. */
function noise(random: SeededRandom, streams: readonly number[]): Buffer {
  switch (random.below(6)) {
    case 0:
      return pingFrame(random.bytes(8));
    case 1:
    {
      const id = random.pick([0x1, 0x3, 0x4, 0x5, 0x6, 0x9]);
      const value = random.pick([0, 100, 4096, 16_384, 65_535, 1_000_000]);
      // SETTINGS_MAX_FRAME_SIZE may not go below 16,384.
      return settingsFrame(id === 0x5 && value < 16_384 ? [] : [[id, value]]);
    }
    case 2:
      return windowUpdateFrame(random.chance(0.5) ? 0 : random.pick(streams), random.between(1, 100_000));
    case 3:
      return frame(FrameType.priority, 0, random.pick(streams), Buffer.from([0, 0, 0, 0, random.below(256)]));
    case 4:
      return frame(random.between(0x0a, 0xff), random.below(256), random.below(8), random.bytes(random.length(32)));
    default:
      return frame(FrameType.settings, FrameFlag.ack, 0);
  }
}

/**
 * The frames of valid answers to `streams`, interleaved at frame boundaries
 * (never inside a header block) with a few harmless frames: an interim
 * answer now and then, the answer's headers, a body for an error, trailers,
 * and perhaps a closing GOAWAY that keeps every stream. Answers what each
 * stream should read as.
 */
export function answerFrames(random: SeededRandom, streams: readonly number[]): { frames: Buffer[]; expected: Map<number, ExpectedAnswer> } {
  const hpack = new FuzzHpackWriter(random);
  const expected = new Map<number, ExpectedAnswer>();
  // Each stream's frames in order, as units rendered when their turn comes: header blocks must be
  // encoded in the order the client decodes them, and a block's frames stay together.
  const units = new Map<number, (() => Buffer[])[]>();
  for (const stream of streams) {
    const status = random.pick(statuses);
    const own: (() => Buffer[])[] = [];
    if (random.chance(0.1)) own.push(() => headerFrames(random, stream, hpack.block([[':status', random.pick(['100', '103'])]]), false));
    const fields: [string, string][] = [[':status', String(status)]];
    for (let count = random.below(5); count > 0; count -= 1) fields.push([fieldName(random), fieldValue(random)]);
    const body = status === 200 || random.chance(0.3) ? Buffer.alloc(0) : Buffer.from(text(random, valueCharacters, random.between(1, random.chance(0.1) ? 70_000 : 300)));
    const trailers = random.chance(0.1);
    own.push(() => headerFrames(random, stream, hpack.block(fields), body.length === 0 && !trailers));
    if (body.length > 0) own.push(() => dataFrames(random, stream, body, !trailers));
    if (trailers) own.push(() => headerFrames(random, stream, hpack.block([['x-trailer', 'done']]), true));
    units.set(stream, own);
    expected.set(stream, { status, body: status === 200 || body.length === 0 ? undefined : body.subarray(0, 64 * 1024) });
  }
  const frames: Buffer[] = [];
  let noiseLeft = random.below(6);
  const pending = [...units.values()];
  while (pending.length > 0) {
    if (noiseLeft > 0 && random.chance(0.3)) {
      frames.push(noise(random, streams));
      noiseLeft -= 1;
    }
    const index = random.below(pending.length);
    const list = pending[index] as (() => Buffer[])[];
    frames.push(...(list.shift() as () => Buffer[])());
    if (list.length === 0) pending.splice(index, 1);
  }
  if (random.chance(0.1)) frames.push(goAwayFrame(Math.max(...streams), 0, 'bye'));
  return { frames, expected };
}
