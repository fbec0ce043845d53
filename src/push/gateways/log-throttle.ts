import type { Clock } from '../../core/clock.ts';

/** Keys remembered at once; the oldest is forgotten past this, so a stream of new keys cannot grow the map. */
const maxKeys = 64;

/**
 * Lets a log line about one kind of event through at its first occurrence,
 * then at most once per interval, and counts the ones held back meanwhile,
 * so that a peer answering the same thing thousands of times a second makes
 * one line a minute, not thousands.
 */
export class LogThrottle {
  readonly #intervalMs: number;
  readonly #clock: Clock;
  readonly #last = new Map<string, { at: number; held: number }>();

  constructor(options: { intervalMs: number; clock: Clock }) {
    this.#intervalMs = options.intervalMs;
    this.#clock = options.clock;
  }

  /**
   * Whether a line about `key` may be written now: undefined when not (it is
   * counted), else how many lines about `key` were held back since the last one written.
   */
  admit(key: string): number | undefined {
    const now = this.#clock.now();
    const last = this.#last.get(key);
    if (last !== undefined && now - last.at < this.#intervalMs) {
      last.held += 1;
      return undefined;
    }
    const held = last?.held ?? 0;
    this.#last.delete(key);
    if (this.#last.size >= maxKeys) this.#last.delete(this.#last.keys().next().value as string);
    this.#last.set(key, { at: now, held: 0 });
    return held;
  }
}
