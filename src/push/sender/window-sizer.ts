/** The least and most deliveries a sender process keeps in flight. */
export interface WindowBounds {
  min: number;
  max: number;
}

export interface WindowSizerOptions {
  bounds: WindowBounds;
  /** Milliseconds on a monotonic clock; default `performance.now`. */
  now?: () => number;
  /** Share of the time the event loop was busy since the previous call (0..1); default Node's event-loop utilization. */
  busy?: () => number;
  /** Told the new limit whenever it changes. */
  resized?: (limit: number) => void;
}

/** A window's state over one epoch, as the window measured it. */
export interface WindowEpoch {
  /** Deliveries that settled. */
  settled: number;
  /** Sum over the epoch of deliveries in flight × time (ms): over `settled`, their mean time in flight (Little's law). */
  heldMs: number;
  /** Whether deliveries had to wait for a place: the window, not the audience, was what limited the sends. */
  saturated: boolean;
}

/** Shortest epoch; longer when deliveries take longer, so that each epoch sees several round trips. */
const minEpochMs = 100;
/** Fewest settled deliveries that make an epoch worth judging. */
const minEpochSettled = 32;
/** Above this share of busy time the process's own CPU limits its rate: more deliveries in flight only queue. */
const busyCeiling = 0.8;
/** Latency up to this many times the base: the gateways are not queueing. */
const calmLatency = 1.25;
/** Latency from this many times the base: requests queue (at a gateway or in this process); the window shrinks. */
const crowdedLatency = 2;
const growth = 1.5;
/** Epochs without another growth after one was taken back. */
const holdEpochs = 10;
/** A sender idle this long forgets what it learnt: the next push may go elsewhere, or over another network path. */
export const forgetAfterIdleMs = 5000;
/**
 * The base latency is the least epoch mean of this long: a sender that is
 * never idle for 5 s must still learn that its gateway has become slower (at
 * its peak hours, or after a reconnect to a farther host), or the higher
 * latency would keep the window at `min` for good.
 */
export const baseWindowMs = 10_000;

/**
 * Sizes one gateway's delivery window from what its deliveries take. By
 * Little's law, rate = in flight ÷ latency: against a gateway 30 ms away, 300
 * deliveries in flight cap a process at 10,000 a second however idle its CPU,
 * while against a nearby one the same 300 keep the CPU busy and more would
 * only hold memory and cost GC time. So the window starts at `min`; its first
 * epoch (at least 100 ms) sets the base latency, the lowest epoch mean of the
 * last 10 s; after it the window grows by half per epoch while the window was
 * full, the event loop had time to spare and the mean latency stayed near the
 * base (no queue is building). A growth after which the next epoch's latency
 * rose by more than a quarter only queued, and is taken back; none is tried
 * for 10 epochs. The window shrinks when latency reaches twice the base, never
 * below `min` nor above `max`. A window idle for 5 s starts over (`forget`).
 */
export class WindowSizer {
  readonly bounds: WindowBounds;
  #limit: number;
  /** Epoch mean latencies of the last `baseWindowMs`, oldest first; the least is the base. */
  #latencies: { at: number; ms: number }[] = [];
  #epochStart: number;
  readonly #now: () => number;
  readonly #busy: () => number;
  readonly #resized: ((limit: number) => void) | undefined;
  /** The last growth, until the next epoch shows whether it only raised the latency. */
  #trial: { from: number; latencyMs: number } | undefined;
  #epochs = 0;
  #holdUntil = 0;

  constructor(options: WindowSizerOptions) {
    const { min, max } = options.bounds;
    if (!Number.isInteger(min) || min < 1 || !Number.isInteger(max) || max < min) throw new RangeError(`window bounds must be integers with 1 ≤ min ≤ max, not ${min}..${max}`);
    this.bounds = { min, max };
    this.#limit = min;
    this.#now = options.now ?? (() => performance.now());
    this.#busy = options.busy ?? eventLoopBusy();
    this.#epochStart = this.#now();
    this.#resized = options.resized;
    this.#resized?.(min);
  }

  get limit(): number {
    return this.#limit;
  }

  /** The lowest epoch mean latency (ms) of the last 10 s; Infinity before the first epoch or after `forget`. */
  get baseMs(): number {
    let base = Number.POSITIVE_INFINITY;
    for (const latency of this.#latencies) base = Math.min(base, latency.ms);
    return base;
  }

  /** Whether the epoch begun at the last `judge` (or `forget`) has run long enough to be judged. */
  due(now: number, epoch: WindowEpoch): boolean {
    const elapsed = now - this.#epochStart;
    if (elapsed < minEpochMs || epoch.settled < minEpochSettled) return false;
    // At least three mean latencies, so that one epoch is not a single burst of answers.
    return elapsed >= (3 * epoch.heldMs) / epoch.settled;
  }

  /** Judges an epoch (when `due`) and answers the window's new limit; the caller starts the next epoch. */
  judge(now: number, epoch: WindowEpoch): number {
    this.#epochStart = now;
    this.#epochs += 1;
    const busy = this.#busy();
    if (epoch.settled < minEpochSettled) return this.#limit;
    const latencyMs = epoch.heldMs / epoch.settled;
    const trial = this.#trial;
    this.#trial = undefined;
    // By Little's law a growth that only queued (CPU or gateway the limit) raised latency in proportion; one
    // that sent more left it as it was. Latency, unlike the epoch's rate, does not dip when a slice runs short.
    if (trial !== undefined && latencyMs > trial.latencyMs * calmLatency) {
      this.#set(trial.from);
      this.#holdUntil = this.#epochs + holdEpochs;
      return this.#limit;
    }
    // The first epoch only sets the base: judged against itself it would always look calm, and a push's
    // first epoch has idle time (connections opening) however busy the rest will be.
    const judged = this.#latencies.length > 0;
    this.#remember(now, latencyMs);
    const ratio = latencyMs / this.baseMs;
    if (ratio >= crowdedLatency) {
      this.#set(Math.max(this.bounds.min, Math.floor((this.#limit * calmLatency) / ratio)));
    } else if (judged && this.#epochs > this.#holdUntil && ratio <= calmLatency && epoch.saturated && busy < busyCeiling && this.#limit < this.bounds.max) {
      this.#trial = { from: this.#limit, latencyMs };
      this.#set(Math.min(this.bounds.max, Math.ceil(this.#limit * growth)));
    }
    return this.#limit;
  }

  /** Starts over from `min`, with no base latency; answers the limit. The caller starts the next epoch. */
  forget(now: number): number {
    this.#epochStart = now;
    this.#latencies = [];
    this.#trial = undefined;
    this.#holdUntil = 0;
    this.#busy();
    this.#set(this.bounds.min);
    return this.#limit;
  }

  /** Adds an epoch's mean latency and lets those older than the base's window go (the newest always stays). */
  #remember(now: number, ms: number): void {
    const latencies = this.#latencies;
    latencies.push({ at: now, ms });
    let stale = 0;
    while (stale < latencies.length - 1 && (latencies[stale] as { at: number }).at < now - baseWindowMs) stale += 1;
    if (stale > 0) latencies.splice(0, stale);
  }

  #set(limit: number): void {
    if (limit === this.#limit) return;
    this.#limit = limit;
    this.#resized?.(limit);
  }

  /** The time (ms) a caller should pass as `now`. */
  time(): number {
    return this.#now();
  }
}

function eventLoopBusy(): () => number {
  let last = performance.eventLoopUtilization();
  return () => {
    const current = performance.eventLoopUtilization();
    const share = performance.eventLoopUtilization(current, last).utilization;
    last = current;
    return share;
  };
}
