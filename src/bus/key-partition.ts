/**
 * Kafka's murmur2 (the Java client's `Utils.murmur2`), which its default
 * partitioner and kafkajs' `Partitioners.DefaultPartitioner` hash keys with.
 */
export function murmur2(data: Uint8Array): number {
  const m = 0x5bd1e995;
  const length = data.length;
  let h = (0x9747b28c ^ length) | 0;
  const whole = length - (length % 4);
  for (let i = 0; i < whole; i += 4) {
    let k = (data[i]! & 0xff) | ((data[i + 1]! & 0xff) << 8) | ((data[i + 2]! & 0xff) << 16) | ((data[i + 3]! & 0xff) << 24);
    k = Math.imul(k, m);
    k ^= k >>> 24;
    k = Math.imul(k, m);
    h = Math.imul(h, m) ^ k;
  }
  const tail = length % 4;
  if (tail === 3) h ^= (data[whole + 2]! & 0xff) << 16;
  if (tail >= 2) h ^= (data[whole + 1]! & 0xff) << 8;
  if (tail >= 1) {
    h ^= data[whole]! & 0xff;
    h = Math.imul(h, m);
  }
  h ^= h >>> 13;
  h = Math.imul(h, m);
  h ^= h >>> 15;
  return h | 0;
}

/**
 * The partition Kafka's default partitioner picks for `key`. The in-process bus
 * uses it too, so a key lands on the same partition number in either adapter.
 */
export function partitionForKey(key: string, partitions: number): number {
  return (murmur2(Buffer.from(key, 'utf8')) & 0x7fffffff) % partitions;
}
