/** How one statement that held a permit ended, as far as the limit is concerned. */
export type PermitOutcome =
  /** Answered: `kind` names the sort of statement, whose latencies are compared with each other only. */
  | { kind: string; latencyMs: number }
  /** The node said it is overloaded, or did not answer in time: too much in flight. */
  | 'congested'
  /** Failed for a reason that says nothing about load (a refused connection, a bad statement). */
  | 'ignored';

export interface AdaptiveLimitOptions {
  /** Statements allowed in flight at the start. */
  initial: number;
  /** Never fewer than this, however slow the node. At least 1. */
  min: number;
  /** Never more than this, however fast the node. */
  max: number;
  /** An answer slower than this many times the fastest recent one of its kind counts as congestion. Default 4. */
  slowFactor?: number;
  /** No answer faster than this counts as congestion, whatever the fastest one took. Default 100 ms. */
  slowFloorMs?: number;
  /** The limit is multiplied by this on congestion. Default 0.5. */
  decrease?: number;
}

/** A permit to have one statement in flight; `release` once, with how the statement ended. */
export interface Permit {
  release(outcome: PermitOutcome): void;
}

/** The fastest latency of a kind over its recent answers: the minimum of the current window of answers and the one before. */
class RecentFastest {
  static readonly window = 128;
  #current = Number.POSITIVE_INFINITY;
  #previous = Number.POSITIVE_INFINITY;
  #count = 0;

  add(latencyMs: number): void {
    this.#current = Math.min(this.#current, latencyMs);
    this.#count += 1;
    if (this.#count < RecentFastest.window) return;
    this.#previous = this.#current;
    this.#current = Number.POSITIVE_INFINITY;
    this.#count = 0;
  }

  get value(): number {
    return Math.min(this.#current, this.#previous);
  }
}

/**
 * How many statements may be in flight, grown and shrunk with what the node
 * answers (additive increase, multiplicative decrease, as TCP does). Until
 * the first sign of congestion the limit grows by one per answer (doubling
 * every round trip); after it, by one per limit's worth of answers. An
 * overloaded or timed-out statement, or an answer much slower than the
 * fastest recent answer of its kind, multiplies the limit by `decrease`,
 * once per round: signals from statements sent before the last decrease
 * were caused by the limit before it and do not count again.
 */
export class AdaptiveLimit {
  readonly #min: number;
  readonly #max: number;
  readonly #slowFactor: number;
  readonly #slowFloorMs: number;
  readonly #decrease: number;
  readonly #fastest = new Map<string, RecentFastest>();
  readonly #waiting: (() => void)[] = [];
  #limit: number;
  #inFlight = 0;
  #slowStart = true;
  /** Bumped by every decrease; a permit remembers the round it was granted in. */
  #round = 0;
  #lowest: number;

  constructor(options: AdaptiveLimitOptions) {
    this.#min = Math.max(1, Math.floor(options.min));
    this.#max = Math.max(this.#min, Math.floor(options.max));
    this.#limit = Math.min(this.#max, Math.max(this.#min, options.initial));
    this.#lowest = this.#limit;
    this.#slowFactor = options.slowFactor ?? 4;
    this.#slowFloorMs = options.slowFloorMs ?? 100;
    this.#decrease = options.decrease ?? 0.5;
  }

  /** Statements allowed in flight now. */
  get limit(): number {
    return Math.floor(this.#limit);
  }

  /** The lowest the limit has been. */
  get lowest(): number {
    return Math.floor(this.#lowest);
  }

  get inFlight(): number {
    return this.#inFlight;
  }

  /** Waits for a free permit; permits are granted in the order they were asked for. */
  async acquire(): Promise<Permit> {
    if (this.#inFlight >= this.limit || this.#waiting.length > 0) {
      await new Promise<void>((resolve) => this.#waiting.push(resolve));
    } else {
      this.#inFlight += 1;
    }
    const round = this.#round;
    let released = false;
    return {
      release: (outcome) => {
        if (released) return;
        released = true;
        this.#inFlight -= 1;
        this.#adjust(outcome, round);
        this.#grant();
      },
    };
  }

  #adjust(outcome: PermitOutcome, round: number): void {
    if (outcome === 'ignored') return;
    if (outcome === 'congested' || this.#slow(outcome)) {
      if (round !== this.#round) return;
      this.#round += 1;
      this.#slowStart = false;
      this.#limit = Math.max(this.#min, this.#limit * this.#decrease);
      this.#lowest = Math.min(this.#lowest, this.#limit);
      return;
    }
    this.#limit = Math.min(this.#max, this.#limit + (this.#slowStart ? 1 : 1 / this.#limit));
  }

  /** Records the latency and answers whether it is far above the fastest recent one of its kind. */
  #slow(answer: { kind: string; latencyMs: number }): boolean {
    let fastest = this.#fastest.get(answer.kind);
    if (fastest === undefined) {
      fastest = new RecentFastest();
      this.#fastest.set(answer.kind, fastest);
    }
    const baseline = fastest.value;
    fastest.add(answer.latencyMs);
    return Number.isFinite(baseline) && answer.latencyMs > Math.max(this.#slowFloorMs, this.#slowFactor * baseline);
  }

  #grant(): void {
    while (this.#waiting.length > 0 && this.#inFlight < this.limit) {
      this.#inFlight += 1;
      this.#waiting.shift()?.();
    }
  }
}
