import type { DeliveryTagger } from '../../support/gateways/delivery-log.ts';

/**
 * When each accepted delivery of a push reached the fake gateways, by the
 * push's tag: a tagger that notes the time of every delivery it names, around
 * the tagger the fakes already use.
 */
export class DeliveryTimeline {
  readonly #times = new Map<string, number[]>();
  readonly #watched = new Set<string>();

  /** `tagger`, noting the time of each delivery of a watched push. */
  wrap(tagger: DeliveryTagger): DeliveryTagger {
    return (body) => {
      const tag = tagger(body);
      if (tag !== undefined && this.#watched.has(tag)) {
        let times = this.#times.get(tag);
        if (times === undefined) this.#times.set(tag, (times = []));
        times.push(performance.now());
      }
      return tag;
    };
  }

  watch(tag: string): void {
    this.#watched.add(tag);
  }

  /** The most deliveries of `tag` in any one-second window (sliding, from the first), the window's start, and how long the push took. */
  busiestSecond(tag: string): { most: number; atMs: number; spanMs: number; deliveries: number } {
    const times = [...(this.#times.get(tag) ?? [])].sort((a, b) => a - b);
    let most = 0;
    let atMs = 0;
    for (let first = 0, last = 0; last < times.length; last++) {
      while ((times[last] as number) - (times[first] as number) >= 1000) first++;
      if (last - first + 1 > most) {
        most = last - first + 1;
        atMs = (times[first] as number) - (times[0] as number);
      }
    }
    const spanMs = times.length === 0 ? 0 : (times.at(-1) as number) - (times[0] as number);
    return { most, atMs, spanMs, deliveries: times.length };
  }
}
