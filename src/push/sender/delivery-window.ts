import { forgetAfterIdleMs, type WindowEpoch, type WindowSizer } from './window-sizer.ts';

/**
 * A cap on the deliveries one sender process has handed to one gateway's
 * clients and not yet seen settle, shared by every slice in hand. Without it
 * each slice starts all of its deliveries at once: with several slices in
 * hand, thousands of requests wait in the HTTP/2 client's queue for a free
 * stream, holding memory and costing a scan of that queue every time a stream
 * ends, for no gain in rate. Places are handed over in the order asked for.
 *
 * Its size is set by a `WindowSizer` from what the window measures itself
 * (deliveries settled, their time in flight, whether callers waited); a sizer
 * whose bounds are equal keeps it fixed.
 */
export class DeliveryWindow {
  #size: number;
  #inFlight = 0;
  #waiting: (() => void)[] = [];
  #head = 0;
  readonly #sizer: WindowSizer;
  readonly #epoch: WindowEpoch = { settled: 0, heldMs: 0, saturated: false };
  /** When `#inFlight` last changed (sizer time), for the epoch's in-flight × time. */
  #changedAt: number;
  /** When the window last emptied; a take after a long idle spell starts the sizer over. */
  #idleSince: number;

  constructor(sizer: WindowSizer) {
    this.#sizer = sizer;
    this.#size = sizer.limit;
    this.#changedAt = this.#idleSince = sizer.time();
  }

  /** Deliveries the window lets be in flight now. */
  get size(): number {
    return this.#size;
  }

  /** Callers waiting for a place. */
  get waiting(): number {
    return this.#waiting.length - this.#head;
  }

  /** Deliveries in flight now. */
  get inFlight(): number {
    return this.#inFlight;
  }

  /** Slots the queue of waiting callers holds, handed-over ones not yet dropped included; bounded while callers keep waiting. */
  get queueSlots(): number {
    return this.#waiting.length;
  }

  /** Takes a place if one is free, without waiting; answers whether it did. */
  tryTake(): boolean {
    if (this.#inFlight >= this.#size) {
      this.#epoch.saturated = true;
      return false;
    }
    const now = this.#sizer.time();
    if (this.#inFlight === 0 && now - this.#idleSince > forgetAfterIdleMs) {
      // Back to the least size: nothing is in flight, so no waiter can be let in.
      this.#size = this.#sizer.forget(now);
      this.#newEpoch(now);
    } else {
      this.#accumulate(now);
    }
    this.#inFlight += 1;
    return true;
  }

  /** Resolves once a place is taken for the caller: when one is given back, or at once if one is free. */
  take(): Promise<void> {
    if (this.tryTake()) return Promise.resolve();
    return new Promise((resolve) => this.#waiting.push(resolve));
  }

  /** Gives a place back; it passes straight to the longest waiter, if any. The sizer judges an epoch that is due. */
  release(): void {
    const now = this.#sizer.time();
    const epoch = this.#epoch;
    this.#accumulate(now);
    epoch.settled += 1;
    this.#inFlight -= 1;
    if (this.#sizer.due(now, epoch)) {
      // A bigger window lets waiters in now; a smaller one lets the deliveries above it settle first.
      this.#size = this.#sizer.judge(now, epoch);
      this.#newEpoch(now);
    }
    this.#handOver();
    if (this.#inFlight === 0) this.#idleSince = now;
  }

  /** Places free while callers wait go to them, longest waiter first. */
  #handOver(): void {
    while (this.#head < this.#waiting.length && this.#inFlight < this.#size) {
      const next = this.#waiting[this.#head] as () => void;
      this.#head += 1;
      this.#inFlight += 1;
      next();
    }
    // While slices keep waiting the queue never empties: drop the handed-over front now and then, or it grows with every delivery.
    if (this.#head === this.#waiting.length) {
      if (this.#head > 0) {
        this.#waiting = [];
        this.#head = 0;
      }
    } else if (this.#head >= 1024 && this.#head * 2 >= this.#waiting.length) {
      this.#waiting = this.#waiting.slice(this.#head);
      this.#head = 0;
    }
  }

  /** Adds the deliveries in flight × the time since they last changed to the epoch. */
  #accumulate(now: number): void {
    this.#epoch.heldMs += this.#inFlight * (now - this.#changedAt);
    this.#changedAt = now;
  }

  #newEpoch(now: number): void {
    const epoch = this.#epoch;
    epoch.settled = 0;
    epoch.heldMs = 0;
    epoch.saturated = this.waiting > 0;
    this.#changedAt = now;
  }
}

/**
 * The deliveries of one slice, each holding a place of its gateway's window
 * until it settles, counted rather than kept in a list. `settled()` resolves
 * once all have settled, or then rejects with the first failure (a delivery
 * stopped between retries by a rebalance was not sent).
 */
export class WindowedSends {
  #pending = 0;
  #failure: { reason: unknown } | undefined;
  #idle: (() => void) | undefined;
  /** Settle handlers per window, made once per slice and window rather than once per delivery. */
  readonly #handlers = new Map<DeliveryWindow, { done: () => void; failed: (reason: unknown) => void }>();

  /** A delivery started on a place taken from `window`; `undefined` when it ended without sending. */
  add(window: DeliveryWindow, delivery: Promise<void> | undefined): void {
    if (delivery === undefined) {
      window.release();
      return;
    }
    this.#pending += 1;
    const handlers = this.#handlers.get(window) ?? this.#handlersOf(window);
    delivery.then(handlers.done, handlers.failed);
  }

  async settled(): Promise<void> {
    if (this.#pending > 0) await new Promise<void>((resolve) => (this.#idle = resolve));
    if (this.#failure !== undefined) throw this.#failure.reason;
  }

  #handlersOf(window: DeliveryWindow): { done: () => void; failed: (reason: unknown) => void } {
    const handlers = {
      done: (): void => this.#end(window),
      failed: (reason: unknown): void => {
        this.#failure ??= { reason };
        this.#end(window);
      },
    };
    this.#handlers.set(window, handlers);
    return handlers;
  }

  #end(window: DeliveryWindow): void {
    window.release();
    this.#pending -= 1;
    if (this.#pending === 0) this.#idle?.();
  }
}
