import { ConnectionError, ErrorCode } from './connection-error.ts';
import type { H2StreamOwner } from './h2-stream-owner.ts';
import { H2Stream } from './h2-stream.ts';

/** Windows may not exceed 2^31-1 (RFC 9113, 6.9.1). */
export const largestWindow = 2 ** 31 - 1;

/**
 * The streams of one connection: those open by id, the order in which
 * those with body left to send blocked on flow control, and the next id.
 * A frame for a stream the table does not hold is fine if the stream was
 * opened and has ended, and a connection error if it was never opened
 * (RFC 9113, 5.1: an idle stream).
 */
export class StreamTable {
  readonly #open = new Map<number, H2Stream>();
  /** Streams with body left to send, waiting for flow-control window, in the order they blocked. */
  #blocked: H2Stream[] = [];
  #nextId = 1;

  /** Streams open now. */
  get size(): number {
    return this.#open.size;
  }

  /** The id the next stream gets; client streams are odd. */
  get nextId(): number {
    return this.#nextId;
  }

  /** Opens the next stream for `owner`, with `window` to send in. */
  open(owner: H2StreamOwner, window: number): H2Stream {
    const stream = new H2Stream(this.#nextId, owner, window);
    this.#nextId += 2;
    this.#open.set(stream.id, stream);
    return stream;
  }

  /** The open stream `id`; undefined for one that has ended; a connection error for one never opened. */
  find(id: number, frame: string): H2Stream | undefined {
    const stream = this.#open.get(id);
    if (stream === undefined && (id % 2 === 0 || id >= this.#nextId)) {
      throw new ConnectionError(ErrorCode.protocolError, `${frame} on stream ${id}, which was never opened`);
    }
    return stream;
  }

  /** Whether `stream` is still open (an owner may hold a stream that has ended). */
  holds(stream: H2Stream): boolean {
    return this.#open.get(stream.id) === stream;
  }

  /** Ends `stream`: it leaves the table and the blocked list. */
  remove(stream: H2Stream): void {
    this.#open.delete(stream.id);
    if (stream.blocked) {
      stream.blocked = false;
      this.#blocked = this.#blocked.filter((other) => other !== stream);
    }
  }

  /** Ends every stream; answers those that were open. */
  clear(): H2Stream[] {
    const open = [...this.#open.values()];
    this.#open.clear();
    this.#blocked = [];
    return open;
  }

  /** Open streams, in the order they opened. */
  values(): IterableIterator<H2Stream> {
    return this.#open.values();
  }

  /** `stream` waits for window to send the rest of its body. */
  block(stream: H2Stream): void {
    if (stream.blocked) return;
    stream.blocked = true;
    this.#blocked.push(stream);
  }

  /** The blocked streams still open, in the order they blocked, no longer marked blocked. */
  unblockAll(): H2Stream[] {
    const waiting = this.#blocked;
    if (waiting.length === 0) return waiting;
    this.#blocked = [];
    const open: H2Stream[] = [];
    for (const stream of waiting) {
      stream.blocked = false;
      if (this.holds(stream)) open.push(stream);
    }
    return open;
  }

  /**
   * Moves every open stream's send window by `delta`, the change of the
   * server's initial window; a window pushed past 2^31-1 is a connection
   * error (RFC 9113, 6.9.2).
   */
  moveWindows(delta: number): void {
    for (const stream of this.#open.values()) {
      stream.window += delta;
      if (stream.window > largestWindow) throw new ConnectionError(ErrorCode.flowControlError, `SETTINGS_INITIAL_WINDOW_SIZE took stream ${stream.id}'s window over 2^31-1`);
    }
  }
}
