import { decodeHuffman, HuffmanError } from './hpack-huffman.ts';
import { firstDynamicIndex, staticTable } from './hpack-static-table.ts';

/** A header block that cannot be decoded; the connection is lost with COMPRESSION_ERROR (RFC 9113, 4.3). */
export class CompressionError extends Error {}

/** Decoded headers as a flat list: name, value, name, value, … */
export type HeaderList = string[];

/** RFC 7541, 4.1: every entry counts 32 octets beyond its name and value. */
const entryOverhead = 32;

/** Integers beyond this are refused: no table, length or index of ours comes near it. */
const largestInteger = 2 ** 28;

/**
 * The HPACK decoder of one connection's answers (RFC 7541). Its dynamic
 * table lives as long as the connection: every header block must be decoded,
 * in order, even those whose headers nobody reads.
 */
export class HpackDecoder {
  /** Dynamic entries, oldest first: index 62 is the last. */
  readonly #entries: (readonly [string, string])[] = [];
  #size = 0;
  #maxSize: number;
  /** The table size we allow the peer (our SETTINGS_HEADER_TABLE_SIZE). */
  readonly #limit: number;
  #input: Buffer = Buffer.alloc(0);
  #at = 0;
  #end = 0;

  constructor(tableSizeLimit = 4096) {
    this.#limit = tableSizeLimit;
    this.#maxSize = tableSizeLimit;
  }

  /** Decodes one complete header block into `out` (names and values alternating). */
  decode(block: Buffer, start: number, end: number, out: HeaderList): void {
    this.#input = block;
    this.#at = start;
    this.#end = end;
    let headersSeen = false;
    try {
      while (this.#at < end) {
        const first = block[this.#at] as number;
        if (first & 0x80) {
          const [name, value] = this.#entry(this.#integer(7));
          out.push(name, value);
        } else if (first & 0x40) {
          const index = this.#integer(6);
          const name = index === 0 ? this.#string() : (this.#entry(index)[0]);
          const value = this.#string();
          this.#insert(name, value);
          out.push(name, value);
        } else if (first & 0x20) {
          // A table size update is allowed only before the block's first header.
          if (headersSeen) throw new CompressionError('dynamic table size update after a header');
          const size = this.#integer(5);
          if (size > this.#limit) throw new CompressionError(`dynamic table size ${size} over the ${this.#limit} allowed`);
          this.#maxSize = size;
          this.#evict(0);
          continue;
        } else {
          // Literal without indexing (0000) or never indexed (0001): both keep the table as it is.
          const index = this.#integer(4);
          const name = index === 0 ? this.#string() : this.#entry(index)[0];
          out.push(name, this.#string());
        }
        headersSeen = true;
      }
    } catch (error) {
      if (error instanceof HuffmanError) throw new CompressionError(error.message);
      throw error;
    }
  }

  /** Entries in the dynamic table, for tests. */
  get tableSize(): number {
    return this.#size;
  }

  #entry(index: number): readonly [string, string] {
    if (index === 0) throw new CompressionError('header index 0');
    if (index < firstDynamicIndex) return staticTable[index - 1] as readonly [string, string];
    const entry = this.#entries[this.#entries.length - 1 - (index - firstDynamicIndex)];
    if (entry === undefined) throw new CompressionError(`header index ${index} beyond the table`);
    return entry;
  }

  #insert(name: string, value: string): void {
    const size = name.length + value.length + entryOverhead;
    // An entry larger than the table empties it and is not added (RFC 7541, 4.4).
    this.#evict(size);
    if (size <= this.#maxSize) {
      this.#entries.push([name, value]);
      this.#size += size;
    }
  }

  /** Drops the oldest entries until `room` more octets fit. */
  #evict(room: number): void {
    let dropped = 0;
    while (this.#size + room > this.#maxSize && dropped < this.#entries.length) {
      const [name, value] = this.#entries[dropped] as readonly [string, string];
      this.#size -= name.length + value.length + entryOverhead;
      dropped += 1;
    }
    if (dropped > 0) this.#entries.splice(0, dropped);
  }

  /** An integer with an N-bit prefix (RFC 7541, 5.1). */
  #integer(prefixBits: number): number {
    const input = this.#input;
    const mask = (1 << prefixBits) - 1;
    let value = (input[this.#at++] as number) & mask;
    if (value < mask) return value;
    let factor = 1;
    for (;;) {
      if (this.#at >= this.#end) throw new CompressionError('integer cut off');
      const byte = input[this.#at++] as number;
      value += (byte & 0x7f) * factor;
      if (value > largestInteger) throw new CompressionError('integer too large');
      if ((byte & 0x80) === 0) return value;
      factor *= 128;
    }
  }

  /** A string literal, raw or Huffman-coded (RFC 7541, 5.2). */
  #string(): string {
    if (this.#at >= this.#end) throw new CompressionError('string cut off');
    const huffman = ((this.#input[this.#at] as number) & 0x80) !== 0;
    const length = this.#integer(7);
    const start = this.#at;
    const end = start + length;
    if (end > this.#end) throw new CompressionError('string cut off');
    this.#at = end;
    if (huffman) return decodeHuffman(this.#input, start, end);
    return this.#input.toString('latin1', start, end);
  }
}
