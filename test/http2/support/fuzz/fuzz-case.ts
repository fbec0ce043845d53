import { settingsFrame } from '../wire.ts';
import { answerFrames, type ExpectedAnswer } from './answer-frames.ts';
import { mutate, randomFrame } from './frame-mutations.ts';
import { SeededRandom } from './seeded-random.ts';

/** One fuzz case: what the hostile server sends, how, and what the client should make of it if anything. */
export interface FuzzCase {
  index: number;
  /** What the client's requests carry as bodies: their lengths. */
  bodies: number[];
  /** The streams the requests get: 1, then 3. */
  streams: number[];
  /** Sent first: the server's settings, usually valid. */
  preface: Buffer[];
  /** Sent once the requests' HEADERS came (or a moment passed). */
  frames: Buffer[];
  /** Sizes of the writes the bytes are cut into; the last write takes the rest. */
  writes: number[];
  /** What the server does once it has written everything. */
  end: 'end' | 'destroy' | 'keep';
  /** What each stream's answer should be, when the frames are valid as made. */
  expected: Map<number, ExpectedAnswer> | undefined;
  /**
   * How long the server waits for the requests before it sends `frames`, and
   * the requests' deadline: long for valid answers, which must arrive on a
   * busy machine too, short otherwise (a spoilt preface may keep the client
   * from ever sending them, and deadlines are part of what is tested).
   */
  patienceMs: number;
  /** How the case was made, for the failure message. */
  story: string;
}

function preface(random: SeededRandom, valid: boolean): Buffer[] {
  if (!valid) return random.chance(0.5) ? [randomFrame(random, [1, 3])] : mutate(random, [settingsFrame([[0x3, 100]])], [1, 3]).frames;
  const entries: [number, number][] = [];
  if (random.chance(0.5)) entries.push([0x3, random.pick([2, 10, 100, 1000])]);
  if (random.chance(0.3)) entries.push([0x4, random.pick([0, 1000, 65_535, 1_048_576])]);
  if (random.chance(0.3)) entries.push([0x1, random.pick([0, 256, 4096, 65_536])]);
  if (random.chance(0.2)) entries.push([0x5, random.pick([16_384, 1_000_000, 16_777_215])]);
  return [settingsFrame(entries)];
}

/** Case `index` of a run seeded with `seed`: the same on every machine. */
export function makeCase(seed: number, index: number): FuzzCase {
  const random = SeededRandom.forCase(seed, index);
  const requests = random.chance(0.6) ? 1 : 2;
  const streams = requests === 1 ? [1] : [1, 3];
  const bodies = streams.map(() => (random.chance(0.1) ? 70_000 : random.between(0, 200)));
  const roll = random.next();
  let story: string;
  let frames: Buffer[];
  let expected: Map<number, ExpectedAnswer> | undefined;
  let validPreface = true;
  if (roll < 0.2) {
    ({ frames, expected } = answerFrames(random, streams));
    story = 'valid answers';
  } else if (roll < 0.7) {
    const made = answerFrames(random, streams);
    frames = made.frames;
    const done: string[] = [];
    for (let count = random.between(1, 3); count > 0; count -= 1) {
      const mutated = mutate(random, frames, streams);
      frames = mutated.frames;
      done.push(mutated.done);
    }
    story = `valid answers, then: ${done.join('; ')}`;
  } else if (roll < 0.95) {
    frames = Array.from({ length: random.between(1, 12) }, () => randomFrame(random, streams));
    if (random.chance(0.3)) frames.push(...answerFrames(random, streams).frames);
    story = `${frames.length} random frames`;
  } else {
    validPreface = false;
    frames = answerFrames(random, streams).frames;
    story = 'a spoilt preface';
  }
  const writes: number[] = [];
  if (random.chance(0.7)) {
    for (let count = random.between(1, 20); count > 0; count -= 1) writes.push(random.chance(0.3) ? random.between(1, 10) : random.between(1, 4096));
  }
  const end = expected !== undefined ? random.pick(['end', 'keep'] as const) : random.pick(['end', 'destroy', 'keep'] as const);
  return { index, bodies, streams, preface: preface(random, validPreface), frames, writes, end, expected, patienceMs: expected === undefined ? 250 : 5000, story };
}
