import { describe, expect, it } from 'vitest';
import { ManualClock } from './manual-clock.ts';
import { DeliveryTimeline } from './delivery-timeline.ts';

interface Stall {
  from: number;
  ms: number;
}

/**
 * Plays deliveries arriving at `arrivals` (ms) to an observer that runs every
 * millisecond except during `stalls`, ticking every 10 ms while it runs and
 * stamping whatever arrived each time it runs, as the fakes' process does.
 */
function observe(arrivals: number[], stalls: Stall[] = []): DeliveryTimeline {
  const clock = new ManualClock(0);
  const timeline = new DeliveryTimeline({ now: () => clock.now(), autoTick: false });
  timeline.watch('p');
  const pending = [...arrivals].sort((a, b) => a - b);
  const end = (pending.at(-1) ?? 0) + Math.max(0, ...stalls.map(({ from, ms }) => from + ms)) + 20;
  let lastTick = 0;
  for (let now = 0; now <= end; now++, clock.advance(1)) {
    if (stalls.some(({ from, ms }) => now >= from && now < from + ms)) continue;
    if (now - lastTick >= 10) {
      timeline.tick();
      lastTick = now;
    }
    while (pending.length > 0 && (pending[0] as number) <= now) {
      pending.shift();
      timeline.see('p');
    }
  }
  return timeline;
}

/** `count` arrivals evenly spread from `from` at `perSecond`. */
const paced = (count: number, perSecond: number, from = 0): number[] => Array.from({ length: count }, (_, i) => from + (i * 1000) / perSecond);

describe('DeliveryTimeline', () => {
  it('counts an even 1000/s as 1000 in its busiest second when its process always runs', () => {
    const busiest = observe(paced(3000, 1000)).busiestSecond('p');
    expect(busiest.stamped).toBe(1000);
    expect(busiest.most).toBeGreaterThanOrEqual(970);
    expect(busiest.most).toBeLessThanOrEqual(1000);
    expect(busiest.blindMs).toBeLessThanOrEqual(30);
    expect(busiest.deliveries).toBe(3000);
    expect(busiest.spanMs).toBeCloseTo(2999, 0);
  });

  it('does not count as a burst what piled up while its own process was not run', () => {
    // 1000/s throughout; the observer stops for 300 ms, then stamps the 300 that arrived meanwhile at once.
    const busiest = observe(paced(3000, 1000), [{ from: 1200, ms: 300 }]).busiestSecond('p');
    expect(busiest.stamped, 'a naive count by stamps').toBeGreaterThanOrEqual(1250);
    expect(busiest.most).toBeLessThanOrEqual(1000);
    expect(busiest.blindMs).toBeGreaterThanOrEqual(300);
  });

  it('still sees a sender’s burst past 1.1 x when its process stalls now and then', () => {
    // 1000/s, but 600 more sent within 200 ms at 1.5 s: a second of 1,600.
    const burst = paced(600, 3000, 1500);
    const stalls = [0, 1, 2, 3, 4].map((n) => ({ from: 300 + n * 600, ms: 100 }));
    const busiest = observe([...paced(4000, 1000), ...burst], stalls).busiestSecond('p');
    expect(busiest.most).toBeGreaterThan(1100);
    expect(busiest.atMs).toBeGreaterThan(400);
    expect(busiest.atMs).toBeLessThan(1700);
  });

  it('sees a first second of twice the rate with a responsive process', () => {
    const busiest = observe([...paced(1000, 1000), ...paced(1000, 1000)]).busiestSecond('p');
    expect(busiest.most).toBeGreaterThanOrEqual(1900);
    expect(busiest.atMs).toBeLessThan(30);
  });

  it('notes only watched tags, and passes the tag through', () => {
    const timeline = new DeliveryTimeline({ autoTick: false });
    timeline.watch('a');
    const tagger = timeline.wrap((body) => body.toString() || undefined);
    expect(tagger(Buffer.from('a'))).toBe('a');
    expect(tagger(Buffer.from('b'))).toBe('b');
    expect(tagger(Buffer.from(''))).toBeUndefined();
    expect(timeline.busiestSecond('a').deliveries).toBe(1);
    expect(timeline.busiestSecond('b')).toMatchObject({ deliveries: 0, most: 0, stamped: 0, spanMs: 0 });
  });
});
