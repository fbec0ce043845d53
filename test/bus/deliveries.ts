import type { BusMessage } from '../../src/core/ports/bus.ts';
import { partitionForKey } from '../../src/bus/key-partition.ts';
import { withDeadline } from '../support/with-deadline.ts';

/** Long enough for a Kafka group to form and rebalance on a loaded machine. */
const busWaitMs = 20_000;

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

  /** Resolves once `holds` is true of the deliveries so far; fails after `timeoutMs` naming `what` and the deliveries seen. */
  until(what: string, holds: (all: readonly Delivery[]) => boolean, timeoutMs = busWaitMs): Promise<void> {
    if (holds(this.all)) return Promise.resolve();
    const { promise, resolve } = Promise.withResolvers<void>();
    const check = (): void => {
      if (holds(this.all)) resolve();
    };
    this.#waiters.add(check);
    const seen = (): string => `${this.all.length}: ${JSON.stringify(this.all.map(({ member, text }) => `${member}:${text}`))}`;
    return withDeadline(promise, what, { timeoutMs, seen }).finally(() => this.#waiters.delete(check));
  }

  count(count: number, timeoutMs = busWaitMs): Promise<void> {
    return this.until(`${count} deliveries`, (all) => all.length >= count, timeoutMs);
  }

  texts(member?: string): string[] {
    return this.all.filter((delivery) => member === undefined || delivery.member === member).map((delivery) => delivery.text);
  }
}

/** Resolves when `signal` aborts (at once if it already has); fails after `timeoutMs` saying the handler was never told to stop. */
export function aborted(signal: AbortSignal, timeoutMs = busWaitMs): Promise<void> {
  if (signal.aborted) return Promise.resolve();
  const { promise, resolve } = Promise.withResolvers<void>();
  signal.addEventListener('abort', () => resolve(), { once: true });
  return withDeadline(promise, "the handler's signal to abort", { timeoutMs });
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
