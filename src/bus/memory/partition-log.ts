/** A message as the in-process bus keeps it. */
export interface StoredRecord {
  readonly key: string;
  readonly value: Buffer;
  readonly headers: Readonly<Record<string, string>>;
}

/**
 * One partition's messages in offset order. Offsets only grow; the front is
 * trimmed once every reader is past it (or the log is over its size limit).
 */
export class PartitionLog {
  #records: StoredRecord[] = [];
  /** Index in `#records` of the message at `startOffset`. */
  #head = 0;
  #startOffset = 0;
  readonly #waiters = new Set<() => void>();

  /** Offset of the oldest message kept. */
  get startOffset(): number {
    return this.#startOffset;
  }

  /** Offset the next message will get. */
  get endOffset(): number {
    return this.#startOffset + this.size;
  }

  get size(): number {
    return this.#records.length - this.#head;
  }

  append(record: StoredRecord): number {
    this.#records.push(record);
    const offset = this.endOffset - 1;
    for (const wake of [...this.#waiters]) wake();
    return offset;
  }

  /** The message at `offset`, or undefined when it is not written yet or already trimmed. */
  read(offset: number): StoredRecord | undefined {
    if (offset < this.#startOffset) return undefined;
    return this.#records[this.#head + offset - this.#startOffset];
  }

  /** Resolves at the next append, or when `signal` aborts. */
  nextAppend(signal: AbortSignal): Promise<void> {
    if (signal.aborted) return Promise.resolve();
    return new Promise((resolve) => {
      const wake = (): void => {
        this.#waiters.delete(wake);
        signal.removeEventListener('abort', wake);
        resolve();
      };
      this.#waiters.add(wake);
      signal.addEventListener('abort', wake, { once: true });
    });
  }

  /** Drops every message before `offset`; answers how many were dropped. */
  trimTo(offset: number): number {
    const dropped = Math.min(offset, this.endOffset) - this.#startOffset;
    if (dropped <= 0) return 0;
    this.#head += dropped;
    this.#startOffset += dropped;
    // Compact now and then rather than shifting the array on every trim.
    if (this.#head >= 1024 && this.#head * 2 >= this.#records.length) {
      this.#records = this.#records.slice(this.#head);
      this.#head = 0;
    }
    return dropped;
  }
}
