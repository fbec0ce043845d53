import type { BusMessage } from '../../src/core/ports/bus.ts';
import { partitionForKey } from '../../src/bus/key-partition.ts';

export interface Delivery {
  /** Which subscription handled it, as the test named it. */
  member: string;
  message: BusMessage;
  /** The value as text. */
  text: string;
}

/** Messages handlers were given, in order, with a way to wait until some condition holds. */
export class Deliveries {
  readonly all: Delivery[] = [];
  readonly #waiters = new Set<() => void>();

  record(member: string, message: BusMessage): void {
    this.all.push({ member, message, text: message.value.toString('utf8') });
    for (const check of [...this.#waiters]) check();
  }

  /** Resolves once `holds` is true of the deliveries so far. */
  until(holds: (all: readonly Delivery[]) => boolean): Promise<void> {
    if (holds(this.all)) return Promise.resolve();
    return new Promise((resolve) => {
      const check = (): void => {
        if (!holds(this.all)) return;
        this.#waiters.delete(check);
        resolve();
      };
      this.#waiters.add(check);
    });
  }

  count(count: number): Promise<void> {
    return this.until((all) => all.length >= count);
  }

  texts(member?: string): string[] {
    return this.all.filter((delivery) => member === undefined || delivery.member === member).map((delivery) => delivery.text);
  }
}

/** Resolves when `signal` aborts (at once if it already has). */
export function aborted(signal: AbortSignal): Promise<void> {
  if (signal.aborted) return Promise.resolve();
  return new Promise((resolve) => signal.addEventListener('abort', () => resolve(), { once: true }));
}

/** One key per partition: `keys[p]` lands on partition `p`. */
export function keysForPartitions(partitions: number, prefix = 'key'): string[] {
  const keys: string[] = [];
  for (let partition = 0; partition < partitions; partition += 1) {
    let candidate = 0;
    while (partitionForKey(`${prefix}-${candidate}`, partitions) !== partition) candidate += 1;
    keys.push(`${prefix}-${candidate}`);
  }
  return keys;
}
