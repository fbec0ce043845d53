import { ConnectionError, ErrorCode } from './connection-error.ts';
import { checkFieldName, checkFieldValue } from './field-rules.ts';
import { decodeHuffman, HuffmanError } from './hpack-huffman.ts';
import { firstDynamicIndex, staticTable } from './hpack-static-table.ts';

/** A header block that cannot be decoded; the connection is lost with COMPRESSION_ERROR (RFC 9113, 4.3). */
export class CompressionError extends ConnectionError {
  constructor(message: string) {
    super(ErrorCode.compressionError, message);
  }
}

/** Decoded headers as a flat list: name, value, name, value, … */
export type HeaderList = string[];

/** RFC 7541, 4.1: every entry counts 32 octets beyond its name and value. */
const entryOverhead = 32;

/** Integers beyond this are refused: no table, length or index of ours comes near it. */
export const largestInteger = 2 ** 28;

/** Continuation octets of an integer, at most: four carry 28 bits, which `largestInteger` needs. */
const mostContinuations = 4;

/**
 * The HPACK decoder of one connection's answers (RFC 7541). Its dynamic
 * table lives as long as the connection: every header block must be decoded,
 * in order, even those whose headers nobody reads.
 *
 * Every error is a `CompressionError` thrown before anything more is read:
 * nothing in a block is skipped. Names and values that come as literals are
 * checked against HTTP/2's field rules (names and values from a table were
 * checked when they entered it), and a decoded list larger than
 * `listSizeLimit` (counted as SETTINGS_MAX_HEADER_LIST_SIZE counts) is
 * refused, however small its block: one-octet indexes into a full table
 * would otherwise make a block of 80 KiB decode to megabytes.
 */
export class HpackDecoder {
  /** Dynamic entries, oldest first: index 62 is the last. */
  readonly #entries: (readonly [string, string])[] = [];
  #size = 0;
  #maxSize: number;
  /** The table size we allow the peer (our SETTINGS_HEADER_TABLE_SIZE). */
  readonly #limit: number;
  readonly #listSizeLimit: number;
  #input: Buffer = Buffer.alloc(0);
  #at = 0;
  #end = 0;

  constructor(tableSizeLimit = 4096, listSizeLimit = 64 * 1024) {
    this.#limit = tableSizeLimit;
    this.#maxSize = tableSizeLimit;
    this.#listSizeLimit = listSizeLimit;
  }

  /** Decodes one complete header block into `out` (names and values alternating). */
  decode(block: Buffer, start: number, end: number, out: HeaderList): void {
    this.#input = block;
    this.#at = start;
    this.#end = end;
    let headersSeen = false;
    let listSize = 0;
    try {
      while (this.#at < end) {
        const first = block[this.#at] as number;
        let name: string;
        let value: string;
        if (first & 0x80) {
          const entry = this.#entry(this.#integer(7));
          name = entry[0];
          value = entry[1];
        } else if (first & 0x40) {
          const index = this.#integer(6);
          name = index === 0 ? this.#literalName() : this.#entry(index)[0];
          value = this.#literalValue();
          this.#insert(name, value);
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
          name = index === 0 ? this.#literalName() : this.#entry(index)[0];
          value = this.#literalValue();
        }
        listSize += name.length + value.length + entryOverhead;
        if (listSize > this.#listSizeLimit) throw new ConnectionError(ErrorCode.enhanceYourCalm, `a header list over the ${this.#listSizeLimit} octets allowed`);
        out.push(name, value);
        headersSeen = true;
      }
    } catch (error) {
      if (error instanceof HuffmanError) throw new CompressionError(error.message);
      throw error;
    }
  }

  /** Octets in the dynamic table (RFC 7541, 4.1), for tests. */
  get tableSize(): number {
    return this.#size;
  }

  /** Entries in the dynamic table, for tests. */
  get tableEntries(): number {
    return this.#entries.length;
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

  /**
   * An integer with an N-bit prefix (RFC 7541, 5.1). More than four
   * continuation octets is refused however small their value: zero octets
   * with the continuation bit set would otherwise go on for as long as the
   * block, and the factor they multiply by overflow to a value that is no
   * number.
   */
  #integer(prefixBits: number): number {
    const input = this.#input;
    const mask = (1 << prefixBits) - 1;
    let value = (input[this.#at++] as number) & mask;
    if (value < mask) return value;
    for (let continuation = 0; ; continuation += 1) {
      if (continuation === mostContinuations) throw new CompressionError(`an integer of more than ${mostContinuations} continuation octets`);
      if (this.#at >= this.#end) throw new CompressionError('integer cut off');
      const byte = input[this.#at++] as number;
      value += (byte & 0x7f) << (7 * continuation);
      if ((byte & 0x80) === 0) break;
    }
    if (value > largestInteger) throw new CompressionError('integer too large');
    return value;
  }

  #literalName(): string {
    const name = this.#string();
    checkFieldName(name);
    return name;
  }

  #literalValue(): string {
    const value = this.#string();
    checkFieldValue(value);
    return value;
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
