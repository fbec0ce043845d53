import { fnv1a } from '../../core/fnv1a.ts';

/**
 * Installation buckets of the delivery log: an installation's entries are
 * found through the range rows of its bucket. The same hash as the
 * installation shards, so that with the default 64 shards a slice of one
 * shard falls in one bucket. Part of the stored data: changing it strands
 * the range rows already written.
 */
export const deliveryLogBuckets = 64;

export function deliveryLogBucket(objectId: string): number {
  return bucketOfHash(fnv1a(objectId));
}

/** The bucket of an installation whose objectId's `fnv1a` is `hash`. */
export function bucketOfHash(hash: number): number {
  return hash % deliveryLogBuckets;
}

/** Bits per installation and probes per lookup: about 2% of the slices that do not hold an installation are read anyway. */
const bitsPerEntry = 8;
const probes = 5;

/**
 * A Bloom filter of `ids`: byte 0 holds the number of probes, the rest the
 * bits. It answers whether a slice may hold an installation without reading
 * the slice's entries.
 */
export function installationFilter(ids: readonly string[]): Buffer {
  return filterOfHashes(Uint32Array.from(ids, fnv1a), ids.length);
}

/** The filter of the installations whose `fnv1a` hashes are the first `count` of `hashes`. */
export function filterOfHashes(hashes: Uint32Array, count: number): Buffer {
  const bytes = Math.max(8, Math.ceil((count * bitsPerEntry) / 8));
  const filter = Buffer.alloc(1 + bytes);
  filter[0] = probes;
  const bits = bytes * 8;
  for (let index = 0; index < count; index += 1) {
    const hash = hashes[index] as number;
    let position = mix(hash ^ 0x9e3779b9);
    const step = mix(hash ^ 0x85ebca6b) | 1;
    for (let probe = 0; probe < probes; probe += 1) {
      const bit = position % bits;
      filter[1 + (bit >>> 3)] = (filter[1 + (bit >>> 3)] as number) | (1 << (bit & 7));
      position = (position + step) >>> 0;
    }
  }
  return filter;
}

/** Whether `filter` may hold `id`: false means it certainly does not. */
export function filterMayHold(filter: Buffer, id: string): boolean {
  const count = filter[0] ?? 0;
  const bits = (filter.length - 1) * 8;
  if (bits <= 0) return true;
  const hash = fnv1a(id);
  let position = mix(hash ^ 0x9e3779b9);
  const step = mix(hash ^ 0x85ebca6b) | 1;
  for (let probe = 0; probe < count; probe += 1) {
    const bit = position % bits;
    if (((filter[1 + (bit >>> 3)] as number) & (1 << (bit & 7))) === 0) return false;
    position = (position + step) >>> 0;
  }
  return true;
}

/** MurmurHash3's finalizer: spreads every bit of the input over the output. */
function mix(value: number): number {
  let h = value >>> 0;
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

/** A number in [0, 1) of `id` and a push's seed (`fnv1a` of its id): the same device of the same push always draws the same. */
export function sampleDraw(id: string, pushSeed: number): number {
  return mix(fnv1a(id) ^ pushSeed) / 4_294_967_296;
}
