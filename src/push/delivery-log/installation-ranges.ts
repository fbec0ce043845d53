import type { InstallationRange } from '../../core/ports/delivery-log-store.ts';
import { fnv1a } from '../../core/fnv1a.ts';
import { bucketOfHash, filterOfHashes } from './installation-filter.ts';

/** What a slice's kept entries hold of one installation bucket. */
class BucketRange {
  readonly bucket: number;
  low: string;
  high: string;
  hashes = new Uint32Array(64);
  count = 0;

  constructor(bucket: number, first: string) {
    this.bucket = bucket;
    this.low = first;
    this.high = first;
  }
}

/**
 * The range rows of a slice, gathered as its entries are kept: per
 * installation bucket, the lowest and highest objectId and the hashes its
 * filter is made of. An objectId is hashed once, for its bucket and its
 * filter, and no list of ids outlives the call.
 */
export class InstallationRanges {
  readonly #buckets = new Map<number, BucketRange>();
  // With the default 64 shards a shard's slice falls in one bucket.
  #last: BucketRange | undefined;

  add(installation: string): void {
    const hash = fnv1a(installation);
    const bucket = bucketOfHash(hash);
    let range = this.#last;
    if (range === undefined || range.bucket !== bucket) {
      range = this.#buckets.get(bucket);
      if (range === undefined) this.#buckets.set(bucket, (range = new BucketRange(bucket, installation)));
      this.#last = range;
    }
    if (installation < range.low) range.low = installation;
    else if (installation > range.high) range.high = installation;
    if (range.count === range.hashes.length) {
      const grown = new Uint32Array(range.count * 2);
      grown.set(range.hashes);
      range.hashes = grown;
    }
    range.hashes[range.count] = hash;
    range.count += 1;
  }

  /** One range per bucket an installation was added to. */
  ranges(): InstallationRange[] {
    return [...this.#buckets.values()].map(({ bucket, low, high, hashes, count }) => ({ bucket, low, high, filter: filterOfHashes(hashes, count) }));
  }
}
