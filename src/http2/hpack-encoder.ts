import { firstDynamicIndex, staticTable } from './hpack-static-table.ts';

/** RFC 7541, 4.1. */
const entryOverhead = 32;

/** What we keep in our table at most, whatever larger size the peer allows. */
const ourTableLimit = 4096;

/** Static indexes by name, then by value (the first index of a name where it repeats). */
const staticByName = new Map<string, { index: number; values: Map<string, number> }>();
for (const [offset, [name, value]] of staticTable.entries()) {
  let entry = staticByName.get(name);
  if (entry === undefined) {
    entry = { index: offset + 1, values: new Map() };
    staticByName.set(name, entry);
  }
  if (value !== '') entry.values.set(value, offset + 1);
}

interface TableEntry {
  name: string;
  value: string;
  size: number;
  /** Its place in the order of insertions, from which its index follows. */
  insertion: number;
}

/** The byte sink an encoder writes into; `FrameWriter` is the one in use. */
export interface HpackSink {
  byte(value: number): void;
  /** Writes `value` as one octet a character (`checkHeaderValue` made sure every character is below 256). */
  latin1(value: string): void;
}

/** A header value HTTP/2 cannot carry. */
export class InvalidHeaderValue extends Error {}

/** Characters a field value may not hold (RFC 9113, 8.2.1), and any beyond one octet. */
const forbidden = /[^\t\x20-\x7e\x80-\xff]/;

/**
 * Refuses a value with a control character, or a character beyond one octet:
 * header values are octet strings here, and a caller with text beyond Latin-1
 * passes its UTF-8 bytes (`Buffer.from(text).toString('latin1')`).
 */
export function checkHeaderValue(name: string, value: string): void {
  if (forbidden.test(value)) throw new InvalidHeaderValue(`header ${name} holds a character HTTP/2 cannot carry`);
}

/**
 * The HPACK encoder of one connection's requests (RFC 7541). A gateway
 * client sends the same few headers on every request — topic, push type,
 * authorization — so each goes into the dynamic table once and is a one-byte
 * index afterwards; a value that changes with every request (`:path` to
 * APNs) is sent literally and kept out of the table so that it does not
 * push the others out.
 *
 * Strings go raw, not Huffman-coded: a few more bytes on the wire buy no
 * encoding work per request.
 */
export class HpackEncoder {
  /** The table size in use: the peer's SETTINGS_HEADER_TABLE_SIZE, at most 4096. */
  #maxSize = ourTableLimit;
  /** A size to announce at the start of the next block, after the peer's setting changed. */
  #sizeUpdate: number | undefined;
  /** Entries oldest first, as the peer's decoder holds them. */
  readonly #entries: TableEntry[] = [];
  /** Where each entry sits: name, then value, to its insertion number. */
  readonly #lookup = new Map<string, Map<string, number>>();
  #insertions = 0;
  #size = 0;

  /** `checkHeaderValue`, skipped for a value in the table: it was checked when it went in. */
  check(name: string, value: string): void {
    if (this.#lookup.get(name)?.has(value) === true) return;
    checkHeaderValue(name, value);
  }

  /** Applies the peer's SETTINGS_HEADER_TABLE_SIZE. */
  setPeerTableSize(size: number): void {
    const maxSize = Math.min(size, ourTableLimit);
    if (maxSize === this.#maxSize) return;
    this.#maxSize = maxSize;
    this.#sizeUpdate = Math.min(this.#sizeUpdate ?? maxSize, maxSize);
    this.#evict(0);
  }

  /** Starts a header block: announces a changed table size first (RFC 7541, 4.2). */
  begin(out: HpackSink): void {
    const update = this.#sizeUpdate;
    if (update === undefined) return;
    this.#sizeUpdate = undefined;
    // The lowest size since the last block, then the current one if it grew back.
    integer(out, 0x20, 5, update);
    if (update !== this.#maxSize) integer(out, 0x20, 5, this.#maxSize);
  }

  /** A header whose value repeats across requests: an index if it is in a table, else a literal that enters the table. */
  indexed(out: HpackSink, name: string, value: string): void {
    const insertion = this.#lookup.get(name)?.get(value);
    if (insertion !== undefined) {
      integer(out, 0x80, 7, firstDynamicIndex + this.#insertions - 1 - insertion);
      return;
    }
    const known = staticByName.get(name);
    const exact = known?.values.get(value);
    if (exact !== undefined) {
      integer(out, 0x80, 7, exact);
      return;
    }
    const size = name.length + value.length + entryOverhead;
    if (size > this.#maxSize) {
      this.literal(out, name, value);
      return;
    }
    if (known === undefined) {
      out.byte(0x40);
      string(out, name);
    } else {
      integer(out, 0x40, 6, known.index);
    }
    string(out, value);
    this.#insert(name, value, size);
  }

  /** A header whose value changes every time: a literal left out of the table. */
  literal(out: HpackSink, name: string, value: string): void {
    const index = staticByName.get(name)?.index;
    if (index === undefined) {
      out.byte(0x00);
      string(out, name);
    } else {
      integer(out, 0x00, 4, index);
    }
    string(out, value);
  }

  /** Octets in the dynamic table, for tests. */
  get tableSize(): number {
    return this.#size;
  }

  #insert(name: string, value: string, size: number): void {
    this.#evict(size);
    const insertion = this.#insertions;
    this.#insertions += 1;
    this.#entries.push({ name, value, size, insertion });
    this.#size += size;
    let values = this.#lookup.get(name);
    if (values === undefined) {
      values = new Map();
      this.#lookup.set(name, values);
    }
    values.set(value, insertion);
  }

  /** Drops the oldest entries until `room` more octets fit, as the peer's decoder will. */
  #evict(room: number): void {
    let dropped = 0;
    while (this.#size + room > this.#maxSize && dropped < this.#entries.length) {
      const entry = this.#entries[dropped] as TableEntry;
      this.#size -= entry.size;
      const values = this.#lookup.get(entry.name);
      if (values?.get(entry.value) === entry.insertion) {
        values.delete(entry.value);
        if (values.size === 0) this.#lookup.delete(entry.name);
      }
      dropped += 1;
    }
    if (dropped > 0) this.#entries.splice(0, dropped);
  }
}

/** An integer with an N-bit prefix after `flags` (RFC 7541, 5.1). */
function integer(out: HpackSink, flags: number, prefixBits: number, value: number): void {
  const limit = (1 << prefixBits) - 1;
  if (value < limit) {
    out.byte(flags | value);
    return;
  }
  out.byte(flags | limit);
  let rest = value - limit;
  while (rest >= 128) {
    out.byte((rest % 128) | 0x80);
    rest = Math.floor(rest / 128);
  }
  out.byte(rest);
}

/** A raw string literal: length with the Huffman bit clear, then the octets. */
function string(out: HpackSink, value: string): void {
  integer(out, 0x00, 7, value.length);
  out.latin1(value);
}
