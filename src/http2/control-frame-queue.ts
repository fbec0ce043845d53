import { ConnectionError, ErrorCode } from './connection-error.ts';

/** As nghttp2's bound on its queue of acks and resets (NGHTTP2_DEFAULT_MAX_OBQ_FLOOD_ITEM). */
export const defaultControlFrameLimit = 1000;

/**
 * Counts the control frames a connection owes its peer — SETTINGS and PING
 * acks, WINDOW_UPDATE, RST_STREAM — from when one is queued until the socket
 * has handed it to the kernel. A peer that stops reading while it sends
 * frames that each ask for an answer would otherwise have every answer kept
 * in the socket's buffer without end; past `limit` frames owed, the
 * connection ends with ENHANCE_YOUR_CALM.
 *
 * The count of each flush is released by the callback of that flush's
 * write, which the socket calls once the bytes are out of its buffer, in
 * write order; a flush without control frames needs no callback.
 */
export class ControlFrameQueue {
  readonly #limit: number;
  /** Queued since the last flush. */
  #queued = 0;
  /** The counts of flushes whose writes have not completed, oldest first. */
  readonly #flushes: number[] = [];
  #inSocket = 0;
  readonly #written = (): void => {
    this.#inSocket -= this.#flushes.shift() ?? 0;
  };

  constructor(limit = defaultControlFrameLimit) {
    this.#limit = limit;
  }

  /** Control frames queued or in the socket's buffer. */
  get owed(): number {
    return this.#queued + this.#inSocket;
  }

  /** One more control frame is queued; a connection error when the peer has left too many unread. */
  add(what: string): void {
    this.#queued += 1;
    if (this.#queued + this.#inSocket > this.#limit) {
      throw new ConnectionError(ErrorCode.enhanceYourCalm, `${this.#limit} control frames owed to a peer that does not read them (the last: ${what})`);
    }
  }

  /** The queued frames go to the socket now: answers the callback for the flush's last write, or undefined when it holds none. */
  flushing(): (() => void) | undefined {
    const queued = this.#queued;
    if (queued === 0) return undefined;
    this.#queued = 0;
    this.#flushes.push(queued);
    this.#inSocket += queued;
    return this.#written;
  }
}
