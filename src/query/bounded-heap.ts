/**
 * Keeps the `capacity` smallest items offered, by `compare`, in O(capacity)
 * memory. Internally a max-heap: the root is the largest kept item, the first
 * to go when a smaller one arrives.
 */
export class BoundedHeap<T> {
  readonly #items: T[] = [];
  readonly #capacity: number;
  readonly #compare: (a: T, b: T) => number;

  constructor(capacity: number, compare: (a: T, b: T) => number) {
    this.#capacity = capacity;
    this.#compare = compare;
  }

  /** Whether `offer(item)` would keep the item; lets callers skip preparing it. */
  accepts(item: T): boolean {
    if (this.#items.length < this.#capacity) return true;
    const largest = this.#items[0];
    return largest !== undefined && this.#compare(item, largest) < 0;
  }

  offer(item: T): void {
    if (!this.accepts(item)) return;
    if (this.#items.length < this.#capacity) {
      this.#items.push(item);
      this.#siftUp(this.#items.length - 1);
    } else {
      this.#items[0] = item;
      this.#siftDown(0);
    }
  }

  /** The kept items, smallest first. */
  sorted(): T[] {
    return [...this.#items].sort(this.#compare);
  }

  #siftUp(index: number): void {
    let child = index;
    while (child > 0) {
      const parent = (child - 1) >> 1;
      if (this.#compareAt(child, parent) <= 0) return;
      this.#swap(child, parent);
      child = parent;
    }
  }

  #siftDown(index: number): void {
    let parent = index;
    for (;;) {
      const left = 2 * parent + 1;
      const right = left + 1;
      let largest = parent;
      if (left < this.#items.length && this.#compareAt(left, largest) > 0) largest = left;
      if (right < this.#items.length && this.#compareAt(right, largest) > 0) largest = right;
      if (largest === parent) return;
      this.#swap(parent, largest);
      parent = largest;
    }
  }

  #compareAt(a: number, b: number): number {
    return this.#compare(this.#items[a] as T, this.#items[b] as T);
  }

  #swap(a: number, b: number): void {
    const item = this.#items[a] as T;
    this.#items[a] = this.#items[b] as T;
    this.#items[b] = item;
  }
}
