import { huffmanCodes } from '../../../../src/http2/hpack-huffman.ts';
import { staticTable } from '../../../../src/http2/hpack-static-table.ts';
import { hpackInteger } from '../wire.ts';
import type { SeededRandom } from './seeded-random.ts';

const codes = huffmanCodes();

/** `value` Huffman-coded (RFC 7541, Appendix B), padded with ones, with its length prefix. */
export function huffmanString(value: string): Buffer {
  let bits = '';
  for (const octet of Buffer.from(value, 'latin1')) {
    const { code, bits: length } = codes[octet] as { code: number; bits: number };
    bits += code.toString(2).padStart(length, '0');
  }
  while (bits.length % 8 !== 0) bits += '1';
  const out = Buffer.alloc(bits.length / 8);
  for (let index = 0; index < out.length; index += 1) out[index] = parseInt(bits.slice(index * 8, index * 8 + 8), 2);
  return Buffer.concat([hpackInteger(0x80, 7, out.length), out]);
}

function rawString(value: string): Buffer {
  const octets = Buffer.from(value, 'latin1');
  return Buffer.concat([hpackInteger(0, 7, octets.length), octets]);
}

/**
 * A server's HPACK encoder for the fuzzer, written apart from Herald's: it
 * picks a representation at random for each field (an index into either
 * table, a literal with or without indexing or never indexed, a name from a
 * table or not, strings raw or Huffman-coded) and follows its dynamic table
 * as the client's decoder must, so that what it writes is valid HPACK.
 */
export class FuzzHpackWriter {
  readonly #random: SeededRandom;
  /** Dynamic entries, newest first. */
  #entries: { name: string; value: string }[] = [];
  #size = 0;
  #maxSize = 4096;

  constructor(random: SeededRandom) {
    this.#random = random;
  }

  /** A header block of `fields` in order, perhaps after a table size update. */
  block(fields: readonly (readonly [string, string])[]): Buffer {
    const parts: Buffer[] = [];
    if (this.#random.chance(0.1)) {
      this.#maxSize = this.#random.pick([0, 64, 256, 4096]);
      this.#evict(0);
      parts.push(hpackInteger(0x20, 5, this.#maxSize));
    }
    for (const [name, value] of fields) parts.push(this.#field(name, value));
    return Buffer.concat(parts);
  }

  #field(name: string, value: string): Buffer {
    const random = this.#random;
    const exact = this.#indexOf(name, value);
    if (exact !== undefined && random.chance(0.7)) return hpackInteger(0x80, 7, exact);
    const nameIndex = this.#indexOf(name);
    const string = (text: string): Buffer => (random.chance(0.5) ? huffmanString(text) : rawString(text));
    const named = (flags: number, prefix: number): Buffer =>
      nameIndex !== undefined && random.chance(0.6) ? hpackInteger(flags, prefix, nameIndex) : Buffer.concat([Buffer.from([flags]), string(name)]);
    const kind = random.below(3);
    if (kind === 0) {
      const out = Buffer.concat([named(0x40, 6), string(value)]);
      this.#insert(name, value);
      return out;
    }
    return Buffer.concat([named(kind === 1 ? 0x00 : 0x10, 4), string(value)]);
  }

  /** The index of an entry with `name` (and `value`, if given) in either table. */
  #indexOf(name: string, value?: string): number | undefined {
    const fromStatic = staticTable.findIndex(([entryName, entryValue]) => entryName === name && (value === undefined || entryValue === value));
    if (fromStatic !== -1) return fromStatic + 1;
    const fromDynamic = this.#entries.findIndex((entry) => entry.name === name && (value === undefined || entry.value === value));
    return fromDynamic === -1 ? undefined : staticTable.length + 1 + fromDynamic;
  }

  #insert(name: string, value: string): void {
    const size = name.length + value.length + 32;
    this.#evict(size);
    if (size > this.#maxSize) return;
    this.#entries.unshift({ name, value });
    this.#size += size;
  }

  #evict(room: number): void {
    while (this.#size + room > this.#maxSize && this.#entries.length > 0) {
      const oldest = this.#entries.pop() as { name: string; value: string };
      this.#size -= oldest.name.length + oldest.value.length + 32;
    }
  }
}
