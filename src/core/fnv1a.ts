/**
 * FNV-1a (32 bit) of a string's UTF-16 code units: stable across processes
 * and versions. The installation shards, the delivery log's buckets and
 * Cassandra's claim and object buckets are chosen by it, so it must never
 * change.
 */
export function fnv1a(text: string): number {
  let hash = 0x811c9dc5;
  for (let index = 0; index < text.length; index += 1) {
    hash ^= text.charCodeAt(index);
    hash = Math.imul(hash, 0x01000193);
  }
  return hash >>> 0;
}
