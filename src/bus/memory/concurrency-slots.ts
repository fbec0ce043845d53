/** Gives back a slot taken from `ConcurrencySlots`. */
export type ReleaseSlot = () => void;

/** A counting semaphore with first-come-first-served waiters. */
export class ConcurrencySlots {
  #free: number;
  readonly #waiting: ((release: ReleaseSlot | null) => void)[] = [];

  constructor(size: number) {
    this.#free = size;
  }

  /** Resolves with a release function once a slot is free, or null if `signal` aborts first. */
  acquire(signal: AbortSignal): Promise<ReleaseSlot | null> {
    if (signal.aborted) return Promise.resolve(null);
    if (this.#free > 0) {
      this.#free -= 1;
      return Promise.resolve(this.#releaser());
    }
    return new Promise((resolve) => {
      const grant = (release: ReleaseSlot | null): void => {
        signal.removeEventListener('abort', onAbort);
        resolve(release);
      };
      const onAbort = (): void => {
        this.#waiting.splice(this.#waiting.indexOf(grant), 1);
        resolve(null);
      };
      this.#waiting.push(grant);
      signal.addEventListener('abort', onAbort, { once: true });
    });
  }

  #releaser(): ReleaseSlot {
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const next = this.#waiting.shift();
      // The slot passes straight to the next waiter, so it cannot be taken twice.
      if (next === undefined) this.#free += 1;
      else next(this.#releaser());
    };
  }
}
