import { withDeadline } from '../with-deadline.ts';

/** What a fake remembers about each request: full records, or only counts per token. */
export type RecordMode = 'full' | 'count';

/**
 * Names the push a request belongs to, from its body (a marker the test put
 * in the push's data), so that accepted deliveries are also counted per push
 * and token; undefined leaves a request untagged.
 */
export type DeliveryTagger = (body: Buffer) => string | undefined;

interface Waiter {
  count: number;
  of: 'deliveries' | 'requests';
  resolve: () => void;
}

/**
 * The requests a fake gateway received and which of them it accepted (a
 * device would see those). Counts per token are kept in both modes, so a
 * benchmark can check exactly-once delivery without storing payloads.
 */
export class DeliveryLog<R extends { token: string; status: number | 'stalled' }> {
  readonly mode: RecordMode;
  /** Every request that reached the fake's checks, in arrival order (full mode). */
  readonly requests: R[] = [];
  #counts = new Map<string, number>();
  #tagged = new Map<string, Map<string, number>>();
  #lastTagged = new Map<string, Map<string, number | 'stalled'>>();
  #requestCount = 0;
  #deliveryCount = 0;
  #duplicates = 0;
  #waiters: Waiter[] = [];

  constructor(mode: RecordMode) {
    this.mode = mode;
  }

  /**
   * Notes one request; `record` is only built by callers in full mode; `tag`
   * names the push of the request (counted per push when accepted); with
   * `status`, the status is kept as the token's last answer for that push.
   */
  add(token: string, accepted: boolean, record: R | undefined, tag?: string, status?: number | 'stalled'): void {
    this.#requestCount++;
    if (record !== undefined) this.requests.push(record);
    if (tag !== undefined && status !== undefined) {
      let last = this.#lastTagged.get(tag);
      if (last === undefined) this.#lastTagged.set(tag, (last = new Map()));
      last.set(token, status);
    }
    if (accepted) {
      this.#deliveryCount++;
      const before = this.#counts.get(token) ?? 0;
      if (before > 0) this.#duplicates++;
      this.#counts.set(token, before + 1);
      if (tag !== undefined) {
        let perToken = this.#tagged.get(tag);
        if (perToken === undefined) this.#tagged.set(tag, (perToken = new Map()));
        perToken.set(token, (perToken.get(token) ?? 0) + 1);
      }
    }
    if (this.#waiters.length > 0) this.#wake();
  }

  /** Accepted requests (status 200), in order (full mode). */
  get deliveries(): R[] {
    return this.requests.filter((request) => request.status === 200);
  }

  deliveriesTo(token: string): R[] {
    return this.requests.filter((request) => request.token === token && request.status === 200);
  }

  requestsTo(token: string): R[] {
    return this.requests.filter((request) => request.token === token);
  }

  /** Accepted deliveries to `token`, in either mode. */
  countOf(token: string): number {
    return this.#counts.get(token) ?? 0;
  }

  /** Accepted deliveries of the push tagged `tag`, per token (empty when none arrived), in either mode. */
  deliveriesTagged(tag: string): ReadonlyMap<string, number> {
    return this.#tagged.get(tag) ?? new Map();
  }

  /** The status of the last request of the push tagged `tag` to each token it reached (fakes that pass `status` to `add`), in either mode. */
  lastAnswersTagged(tag: string): ReadonlyMap<string, number | 'stalled'> {
    return this.#lastTagged.get(tag) ?? new Map();
  }

  get requestCount(): number {
    return this.#requestCount;
  }

  get deliveryCount(): number {
    return this.#deliveryCount;
  }

  get distinctTokens(): number {
    return this.#counts.size;
  }

  /** Accepted deliveries beyond the first to the same token. */
  get duplicates(): number {
    return this.#duplicates;
  }

  /** Resolves once `count` deliveries were accepted in all; rejects after `timeoutMs` saying how many were. */
  waitForDeliveries(count: number, timeoutMs = 20_000): Promise<void> {
    return this.#wait({ count, of: 'deliveries' }, timeoutMs);
  }

  /** Resolves once `count` requests arrived in all. */
  waitForRequests(count: number, timeoutMs = 20_000): Promise<void> {
    return this.#wait({ count, of: 'requests' }, timeoutMs);
  }

  reset(): void {
    this.requests.length = 0;
    this.#counts = new Map();
    this.#tagged = new Map();
    this.#lastTagged = new Map();
    this.#requestCount = 0;
    this.#deliveryCount = 0;
    this.#duplicates = 0;
  }

  #wait(target: Omit<Waiter, 'resolve'>, timeoutMs: number): Promise<void> {
    if (this.#reached(target)) return Promise.resolve();
    const { promise, resolve } = Promise.withResolvers<void>();
    const entry: Waiter = { ...target, resolve };
    this.#waiters.push(entry);
    const seen = (): string => String(target.of === 'deliveries' ? this.#deliveryCount : this.#requestCount);
    return withDeadline(promise, `${target.count} ${target.of}`, { timeoutMs, seen }).finally(() => {
      this.#waiters = this.#waiters.filter((waiter) => waiter !== entry);
    });
  }

  #wake(): void {
    const ready = this.#waiters.filter((waiter) => this.#reached(waiter));
    if (ready.length === 0) return;
    this.#waiters = this.#waiters.filter((waiter) => !ready.includes(waiter));
    for (const waiter of ready) waiter.resolve();
  }

  #reached(target: { count: number; of: 'deliveries' | 'requests' }): boolean {
    return (target.of === 'deliveries' ? this.#deliveryCount : this.#requestCount) >= target.count;
  }
}
