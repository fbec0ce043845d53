import { closeSync, ftruncateSync, openSync, writeSync } from 'node:fs';

/** One row an import could not take: the JSON Lines of the reject file. */
export interface RejectEntry {
  /** The export file, as given on the command line. */
  file: string;
  /** The line the row starts on, 1-based. */
  line: number;
  class: string;
  objectId?: string;
  /** The code the API would answer for the same problem (see SPEC-NOTES's table). */
  code: number;
  reason: string;
  /** The row as exported; its text when it is not JSON or nests too deep to walk; null when it was too large to keep. */
  row: unknown;
}

/** Where rejected rows go. */
export interface RejectSink {
  add(entries: readonly RejectEntry[]): void;
  /** Bytes written so far: a resumed import cuts the file back to what its checkpoint covers. */
  readonly bytes: number;
  close(): void;
}

/**
 * The reject file: JSON Lines, one entry a row, written as rows are
 * settled in file order. Created readable by its owner only, since rows
 * carry what the export carries (password hashes, session tokens).
 */
export class RejectFile implements RejectSink {
  readonly #fd: number;
  #bytes: number;

  /** Opens the file cut back to `keepBytes` (0: a new file). */
  constructor(path: string, keepBytes: number) {
    this.#fd = openSync(path, 'a+', 0o600);
    ftruncateSync(this.#fd, keepBytes);
    this.#bytes = keepBytes;
  }

  get bytes(): number {
    return this.#bytes;
  }

  add(entries: readonly RejectEntry[]): void {
    if (entries.length === 0) return;
    const text = Buffer.from(entries.map((entry) => `${JSON.stringify(entry)}\n`).join(''), 'utf8');
    writeSync(this.#fd, text);
    this.#bytes += text.length;
  }

  close(): void {
    closeSync(this.#fd);
  }
}

/** A dry run's rejects: counted, and the first few kept to show. */
export class RejectSample implements RejectSink {
  readonly entries: RejectEntry[] = [];
  readonly #keep: number;

  constructor(keep: number) {
    this.#keep = keep;
  }

  get bytes(): number {
    return 0;
  }

  add(entries: readonly RejectEntry[]): void {
    for (const entry of entries) if (this.entries.length < this.#keep) this.entries.push(entry);
  }

  close(): void {}
}
