import type { DeliveryTagger } from './gateways/delivery-log.ts';

/** One delivery as the observer saw it: when it was stamped, and the earliest it can have arrived. */
interface Sighting {
  at: number;
  earliest: number;
}

/** The busiest one-second window of a push, as far as the observer can tell. */
export interface BusiestSecond {
  /** Deliveries certainly inside one window: both their stamp and the earliest they can have arrived fall in it. */
  most: number;
  /** Where that window starts, from the push's first stamp. */
  atMs: number;
  /** The most stamps in any one-second window, counting each delivery at its stamp (what a naive count sees). */
  stamped: number;
  /** The longest any delivery may have waited for this process before it was stamped. */
  blindMs: number;
  /** From the first stamp to the last. */
  spanMs: number;
  deliveries: number;
}

export interface DeliveryTimelineOptions {
  /** The clock; `performance.now()` unless a test drives it. */
  now?: () => number;
  /** Tick on a timer every 10 ms; false when a test calls `tick()` itself. */
  autoTick?: boolean;
}

/**
 * When each accepted delivery of a push reached the fake gateways, by the
 * push's tag: a tagger that notes the time of every delivery it names, around
 * the tagger the fakes already use.
 *
 * The fakes run in the test's own process, and on two shared cores it is
 * often not run for 50 to 300 ms at a time. A delivery that arrived while it
 * was not running is stamped when it runs again, beside the ones that arrived
 * later, so a naive count by stamps sees bursts the sender never made. A
 * timer ticks every 10 ms; a delivery stamped after tick L was read in a
 * poll of the event loop that began after tick L-1, so it arrived after the
 * poll before that, which began after tick L-2: that tick is the earliest it
 * can have arrived. `busiestSecond` counts what is certainly inside a window.
 */
export class DeliveryTimeline {
  readonly #sightings = new Map<string, Sighting[]>();
  readonly #watched = new Set<string>();
  readonly #now: () => number;
  /** The last three ticks, oldest first. */
  readonly #ticks: number[];
  readonly #timer: NodeJS.Timeout | undefined;

  constructor(options: DeliveryTimelineOptions = {}) {
    this.#now = options.now ?? (() => performance.now());
    const start = this.#now();
    this.#ticks = [start, start, start];
    this.#timer = options.autoTick === false ? undefined : setInterval(() => this.tick(), 10).unref();
  }

  /** Notes that this process ran now (the timer's work; a test calls it by hand). */
  tick(): void {
    this.#ticks.shift();
    this.#ticks.push(this.#now());
  }

  /** `tagger`, noting the time of each delivery of a watched push. */
  wrap(tagger: DeliveryTagger): DeliveryTagger {
    return (body) => {
      const tag = tagger(body);
      if (tag !== undefined && this.#watched.has(tag)) this.see(tag);
      return tag;
    };
  }

  /** Notes one delivery of `tag` now (the wrapped tagger's work). */
  see(tag: string): void {
    let sightings = this.#sightings.get(tag);
    if (sightings === undefined) this.#sightings.set(tag, (sightings = []));
    sightings.push({ at: this.#now(), earliest: this.#ticks[0] as number });
  }

  watch(tag: string): void {
    this.#watched.add(tag);
  }

  stop(): void {
    clearInterval(this.#timer);
  }

  /**
   * The most deliveries of `tag` certainly inside one one-second window (from
   * the first second on), beside the naive count by stamps, the longest a
   * delivery may have waited to be stamped, and how long the push took.
   */
  busiestSecond(tag: string): BusiestSecond {
    const sightings = this.#sightings.get(tag) ?? [];
    const stamps = sightings.map(({ at }) => at).sort((a, b) => a - b);
    const first = stamps[0] ?? 0;
    const certain = busiestWindow(sightings);
    // Counted by stamps alone, each delivery is taken to have arrived when it was stamped.
    const stamped = busiestWindow(stamps.map((at) => ({ at, earliest: at })));
    const blindMs = sightings.reduce((longest, { at, earliest }) => Math.max(longest, at - earliest), 0);
    return { most: certain.most, atMs: certain.from - first, stamped: stamped.most, blindMs, spanMs: stamps.length === 0 ? 0 : (stamps.at(-1) as number) - first, deliveries: stamps.length };
  }
}

/** The most sightings whose earliest arrival and stamp both fall in one window of a second, and where that window starts. */
function busiestWindow(unsorted: readonly Sighting[]): { most: number; from: number } {
  const sightings = [...unsorted].sort((a, b) => a.earliest - b.earliest);
  let best = { most: 0, from: 0 };
  // A window holding the most is one starting at some sighting's earliest arrival.
  for (let start = 0; start < sightings.length; start++) {
    const from = (sightings[start] as Sighting).earliest;
    if (start > 0 && (sightings[start - 1] as Sighting).earliest === from) continue;
    let inside = 0;
    for (let next = start; next < sightings.length && (sightings[next] as Sighting).earliest < from + 1000; next++) {
      if ((sightings[next] as Sighting).at < from + 1000) inside++;
    }
    if (inside > best.most) best = { most: inside, from };
  }
  return best;
}
