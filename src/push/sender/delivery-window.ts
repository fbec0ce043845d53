/**
 * A cap on the deliveries one sender process has handed to the gateway
 * clients and not yet seen settle, shared by every slice in hand. Without it
 * each slice starts all of its deliveries at once: with several slices in
 * hand, thousands of requests wait in the HTTP/2 client's queue for a free
 * stream, holding memory and costing a scan of that queue every time a stream
 * ends, for no gain in rate. Places are handed over in the order asked for.
 */
export class DeliveryWindow {
  readonly size: number;
  #free: number;
  #waiting: (() => void)[] = [];
  #head = 0;

  constructor(size: number) {
    if (!Number.isInteger(size) || size < 1) throw new RangeError(`a delivery window holds at least 1 delivery, not ${size}`);
    this.size = size;
    this.#free = size;
  }

  /** Callers waiting for a place. */
  get waiting(): number {
    return this.#waiting.length - this.#head;
  }

  /** Deliveries in flight now. */
  get inFlight(): number {
    return this.size - this.#free;
  }

  /** Takes a place if one is free, without waiting; answers whether it did. */
  tryTake(): boolean {
    if (this.#free === 0) return false;
    this.#free -= 1;
    return true;
  }

  /** Resolves once a place is taken for the caller: when one is given back, or at once if one is free. */
  take(): Promise<void> {
    if (this.tryTake()) return Promise.resolve();
    return new Promise((resolve) => this.#waiting.push(resolve));
  }

  /** Gives a place back; it passes straight to the longest waiter, if any. */
  release(): void {
    if (this.#head === this.#waiting.length) {
      this.#free += 1;
      return;
    }
    const next = this.#waiting[this.#head] as () => void;
    this.#head += 1;
    // While slices keep waiting the queue never empties: drop the handed-over front now and then, or it grows with every delivery.
    if (this.#head === this.#waiting.length) {
      this.#waiting = [];
      this.#head = 0;
    } else if (this.#head >= 1024 && this.#head * 2 >= this.#waiting.length) {
      this.#waiting = this.#waiting.slice(this.#head);
      this.#head = 0;
    }
    next();
  }
}

/**
 * The deliveries of one slice, each holding a place of the window until it
 * settles, counted rather than kept in a list. `settled()` resolves once all
 * have settled, or then rejects with the first failure (a delivery stopped
 * between retries by a rebalance was not sent).
 */
export class WindowedSends {
  readonly #window: DeliveryWindow;
  #pending = 0;
  #failure: { reason: unknown } | undefined;
  #idle: (() => void) | undefined;
  readonly #done = (): void => this.#end();
  readonly #failed = (reason: unknown): void => {
    this.#failure ??= { reason };
    this.#end();
  };

  constructor(window: DeliveryWindow) {
    this.#window = window;
  }

  /** A delivery started on a place taken from the window; `undefined` when it ended without sending. */
  add(delivery: Promise<void> | undefined): void {
    if (delivery === undefined) {
      this.#window.release();
      return;
    }
    this.#pending += 1;
    delivery.then(this.#done, this.#failed);
  }

  async settled(): Promise<void> {
    if (this.#pending > 0) await new Promise<void>((resolve) => (this.#idle = resolve));
    if (this.#failure !== undefined) throw this.#failure.reason;
  }

  #end(): void {
    this.#window.release();
    this.#pending -= 1;
    if (this.#pending === 0) this.#idle?.();
  }
}
