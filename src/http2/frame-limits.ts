import { performance } from 'node:perf_hooks';
import { ConnectionError, ErrorCode } from './connection-error.ts';

/** How many frames that move nothing forward a peer may send, and how fast it earns them back. */
export interface StrayFrameBudget {
  /** At most this many in a burst. */
  burst: number;
  /** Earned back per second. */
  perSecond: number;
  /** Earned back by each stream that ends (its answer, or its reset). */
  perStream: number;
}

/** Generous for any server: a few stray frames a stream (a late WINDOW_UPDATE or RST_STREAM), pings and settings now and then. */
export const defaultStrayFrameBudget: StrayFrameBudget = { burst: 1000, perSecond: 100, perStream: 4 };

/**
 * Bounds the frames a peer sends that carry nothing for an open stream:
 * PING, SETTINGS, PRIORITY, unknown types, a second GOAWAY, unsolicited
 * acks, empty DATA and CONTINUATION, interim answers, and any frame for a
 * stream that has ended. Each is legal alone, and none makes the connection
 * hold anything, but a flood of them costs a frame's work each while
 * nothing gets answered (the HTTP/2 "ping", "settings", "reset" and "empty
 * frames" floods). They spend a budget that refills with time and with every
 * stream that ends; an empty budget is a connection error
 * (ENHANCE_YOUR_CALM), as nghttp2 and Node treat such floods.
 */
export class FrameLimits {
  readonly #budget: StrayFrameBudget;
  readonly #now: () => number;
  #left: number;
  #at: number;

  constructor(budget: StrayFrameBudget = defaultStrayFrameBudget, now: () => number = () => performance.now()) {
    this.#budget = budget;
    this.#now = now;
    this.#left = budget.burst;
    this.#at = now();
  }

  /** Spends one frame of the budget on `what`; a connection error when none is left. */
  stray(what: string): void {
    const now = this.#now();
    const budget = this.#budget;
    this.#left = Math.min(budget.burst, this.#left + ((now - this.#at) * budget.perSecond) / 1000);
    this.#at = now;
    this.#left -= 1;
    if (this.#left < 0) throw new ConnectionError(ErrorCode.enhanceYourCalm, `a flood of frames that carry nothing (the last: ${what})`);
  }

  /** A stream ended: the peer earns a few stray frames back. */
  streamEnded(): void {
    const left = this.#left + this.#budget.perStream;
    this.#left = left > this.#budget.burst ? this.#budget.burst : left;
  }
}
