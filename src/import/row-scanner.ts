/** How the rows of an export file are laid out. */
export type ExportLayout = 'lines' | 'array';

/** Where a scan starts or stopped: a byte offset at a row boundary and the line it is on (1-based). */
export interface ScanPosition {
  offset: number;
  line: number;
}

/** One row's bytes as found in the file, not parsed yet. */
export interface RawRow {
  /** Byte offsets of the row: [start, end). `end` is where a later scan resumes. */
  start: number;
  end: number;
  /** The line the row starts on, 1-based. */
  line: number;
  /** The line `end` is on. */
  endLine: number;
  /** The row's text, or null when it could not be kept (see `problem`). */
  text: string | null;
  /** Why the row cannot be read, when it cannot. */
  problem?: string;
}

/** Rows larger than this are rejected without being held in memory. */
export const defaultMaxRowBytes = 16 * 1024 * 1024;

const newline = 0x0a;
const carriageReturn = 0x0d;
const hash = 0x23;
const quote = 0x22;
const backslash = 0x5c;
const comma = 0x2c;
const openBrace = 0x7b;
const closeBrace = 0x7d;
const openBracket = 0x5b;
const closeBracket = 0x5d;

function isSpace(byte: number): boolean {
  return byte === 0x20 || byte === newline || byte === carriageReturn || byte === 0x09;
}

/**
 * Splits an export file into rows as its bytes arrive, keeping at most one
 * row in memory: JSON Lines (one row a line; blank lines and `#` lines, such
 * as the hosted service's `#filetype:JSON-streaming …` header, are skipped),
 * or the elements of a JSON array (the scan starts just inside the `[`).
 * Each row carries its byte range, so an import can record the end of the
 * last row it finished and resume there.
 */
export class RowScanner {
  readonly #layout: ExportLayout;
  readonly #maxRowBytes: number;
  /** Absolute offset of the next byte to be pushed. */
  #offset: number;
  #line: number;
  /** Bytes of the row being read, from earlier chunks. */
  #pieces: Buffer[] = [];
  #pieceBytes = 0;
  #oversize = false;
  #rowStart = -1;
  #rowLine = 0;
  /** Where the current row's bytes begin in the chunk being scanned (0 when it began in an earlier one). */
  #chunkStart = 0;
  // Array layout: where the element scan stands.
  #depth = 0;
  #inString = false;
  #escaped = false;
  #scalar = false;
  #closed = false;

  constructor(layout: ExportLayout, from: ScanPosition, maxRowBytes = defaultMaxRowBytes) {
    this.#layout = layout;
    this.#offset = from.offset;
    this.#line = from.line;
    this.#maxRowBytes = maxRowBytes;
  }

  /** The position just after the bytes pushed so far. */
  get position(): ScanPosition {
    return { offset: this.#offset, line: this.#line };
  }

  /** Whether an array's closing `]` has been read: nothing after it is a row. */
  get closed(): boolean {
    return this.#closed;
  }

  /** Scans the next bytes of the file and answers the rows they complete. */
  push(chunk: Buffer): RawRow[] {
    const rows: RawRow[] = [];
    if (this.#layout === 'lines') this.#pushLines(chunk, rows);
    else this.#pushArray(chunk, rows);
    this.#offset += chunk.length;
    return rows;
  }

  /** Ends the scan at the end of the file: answers a last row, and what is wrong with how the file ends. */
  finish(): { rows: RawRow[]; problem?: string } {
    const rows: RawRow[] = [];
    if (this.#layout === 'lines') {
      if (this.#rowStart >= 0) this.#endLine(Buffer.alloc(0), 0, 0, this.#offset, rows);
      return { rows };
    }
    if (this.#rowStart >= 0 && this.#scalar && !this.#inString) {
      this.#endElement(Buffer.alloc(0), 0, 0, this.#offset, rows);
    } else if (this.#rowStart >= 0) {
      rows.push({ start: this.#rowStart, end: this.#offset, line: this.#rowLine, endLine: this.#line, text: null, problem: 'the file ends inside this row (is it truncated?)' });
      this.#resetRow();
    }
    return this.#closed ? { rows } : { rows, problem: 'the JSON array is not closed with ]: the file may be truncated' };
  }

  #pushLines(chunk: Buffer, rows: RawRow[]): void {
    let from = 0;
    while (from < chunk.length) {
      if (this.#rowStart < 0) {
        this.#rowStart = this.#offset + from;
        this.#rowLine = this.#line;
      }
      const end = chunk.indexOf(newline, from);
      if (end < 0) {
        this.#keep(chunk, from, chunk.length);
        return;
      }
      this.#line += 1;
      this.#endLine(chunk, from, end, this.#offset + end + 1, rows);
      from = end + 1;
    }
  }

  /** Ends the line whose last bytes are chunk[from, to); `end` is the offset after its newline. */
  #endLine(chunk: Buffer, from: number, to: number, end: number, rows: RawRow[]): void {
    const start = this.#rowStart;
    const line = this.#rowLine;
    const endLine = this.#line;
    if (this.#oversize || this.#pieceBytes + (to - from) > this.#maxRowBytes) {
      rows.push({ start, end, line, endLine, text: null, problem: `the row is larger than ${this.#maxRowBytes} bytes` });
      this.#resetRow();
      return;
    }
    const bytes = this.#take(chunk, from, to);
    let last = bytes.length;
    if (last > 0 && bytes[last - 1] === carriageReturn) last -= 1;
    let first = 0;
    while (first < last && isSpace(bytes[first] as number)) first += 1;
    this.#resetRow();
    if (first === last || bytes[first] === hash) return;
    rows.push({ start, end, line, endLine, text: bytes.toString('utf8', first, last) });
  }

  #pushArray(chunk: Buffer, rows: RawRow[]): void {
    for (let index = 0; index < chunk.length; index += 1) {
      const byte = chunk[index] as number;
      if (byte === newline) this.#line += 1;
      if (this.#closed) continue;
      if (this.#rowStart < 0) {
        if (isSpace(byte) || byte === comma) continue;
        if (byte === closeBracket) {
          this.#closed = true;
          continue;
        }
        this.#rowStart = this.#offset + index;
        this.#rowLine = this.#line;
        this.#chunkStart = index;
        if (byte === openBrace || byte === openBracket) this.#depth = 1;
        else if (byte === quote) this.#inString = true;
        else this.#scalar = true;
        continue;
      }
      if (this.#inString) {
        if (this.#escaped) this.#escaped = false;
        else if (byte === backslash) this.#escaped = true;
        else if (byte === quote) {
          this.#inString = false;
          if (this.#depth === 0 && !this.#scalar) this.#endElement(chunk, this.#chunkStart, index + 1, this.#offset + index + 1, rows);
        }
        continue;
      }
      if (this.#scalar) {
        if (isSpace(byte) || byte === comma || byte === closeBracket) {
          // The terminating byte is not part of the row: a newline there belongs to what follows.
          if (byte === newline) this.#line -= 1;
          this.#endElement(chunk, this.#chunkStart, index, this.#offset + index, rows);
          if (byte === newline) this.#line += 1;
          if (byte === closeBracket) this.#closed = true;
        }
        continue;
      }
      if (byte === quote) this.#inString = true;
      else if (byte === openBrace || byte === openBracket) this.#depth += 1;
      else if (byte === closeBrace || byte === closeBracket) {
        this.#depth -= 1;
        if (this.#depth === 0) this.#endElement(chunk, this.#chunkStart, index + 1, this.#offset + index + 1, rows);
      }
    }
    if (this.#rowStart >= 0) {
      this.#keep(chunk, this.#chunkStart, chunk.length);
      this.#chunkStart = 0;
    }
  }

  #endElement(chunk: Buffer, from: number, to: number, end: number, rows: RawRow[]): void {
    const start = this.#rowStart;
    const line = this.#rowLine;
    const endLine = this.#line;
    if (this.#oversize || this.#pieceBytes + (to - from) > this.#maxRowBytes) {
      rows.push({ start, end, line, endLine, text: null, problem: `the row is larger than ${this.#maxRowBytes} bytes` });
    } else {
      rows.push({ start, end, line, endLine, text: this.#take(chunk, from, to).toString('utf8') });
    }
    this.#resetRow();
  }

  /** Holds chunk[from, to) as part of the current row, unless the row has grown too large to keep. */
  #keep(chunk: Buffer, from: number, to: number): void {
    if (this.#oversize || from >= to) return;
    this.#pieceBytes += to - from;
    if (this.#pieceBytes > this.#maxRowBytes) {
      this.#oversize = true;
      this.#pieces = [];
      return;
    }
    // A copy, so the row does not pin the whole chunk it started in.
    this.#pieces.push(Buffer.from(chunk.subarray(from, to)));
  }

  #take(chunk: Buffer, from: number, to: number): Buffer {
    if (this.#pieces.length === 0) return chunk.subarray(from, to);
    return Buffer.concat([...this.#pieces, chunk.subarray(from, to)]);
  }

  #resetRow(): void {
    this.#pieces = [];
    this.#pieceBytes = 0;
    this.#oversize = false;
    this.#rowStart = -1;
    this.#depth = 0;
    this.#inString = false;
    this.#escaped = false;
    this.#scalar = false;
  }
}
