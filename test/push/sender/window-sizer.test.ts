import { describe, expect, it } from 'vitest';
import { DeliveryWindow } from '../../../src/push/sender/delivery-window.ts';
import { WindowSizer, type WindowEpoch } from '../../../src/push/sender/window-sizer.ts';

/** A sizer on a hand-moved clock and a scripted event-loop busy share. */
function sizer(bounds = { min: 300, max: 2000 }) {
  const state = { now: 0, busy: 0.3, sizes: [] as number[] };
  const s = new WindowSizer({ bounds, now: () => state.now, busy: () => state.busy, resized: (size) => state.sizes.push(size) });
  return { s, state };
}

/** An epoch of `ms` during which `inFlight` deliveries each took `latencyMs`. */
function epoch(inFlight: number, latencyMs: number, ms: number, saturated = true): WindowEpoch {
  const settled = Math.round((inFlight * ms) / latencyMs);
  return { settled, heldMs: settled * latencyMs, saturated };
}

describe('WindowSizer', () => {
  it('sets its base in the first epoch, then grows by half per epoch while a far gateway answers at that latency and the CPU has time, up to max', () => {
    const { s, state } = sizer();
    const limits: number[] = [];
    for (let n = 0; n < 8; n += 1) {
      state.now += 200;
      const e = epoch(s.limit, 30, 200);
      expect(s.due(state.now, e)).toBe(true);
      limits.push(s.judge(state.now, e));
    }
    expect(limits).toEqual([300, 450, 675, 1013, 1520, 2000, 2000, 2000]);
    expect(state.sizes).toEqual([300, 450, 675, 1013, 1520, 2000]);
    expect(s.baseMs).toBe(30);
  });

  it('does not grow while the CPU is what limits the rate, however calm the latency', () => {
    const { s, state } = sizer();
    state.busy = 0.95;
    for (let n = 0; n < 5; n += 1) {
      state.now += 200;
      expect(s.judge(state.now, epoch(s.limit, 10, 200))).toBe(300);
    }
    state.busy = 0.5;
    state.now += 200;
    expect(s.judge(state.now, epoch(s.limit, 10, 200))).toBe(450);
  });

  it('does not grow when nothing waited for a place: the audience, not the window, was the limit', () => {
    const { s, state } = sizer();
    state.now += 200;
    expect(s.judge(state.now, epoch(300, 30, 200))).toBe(300);
    state.now += 200;
    expect(s.judge(state.now, epoch(120, 30, 200, false))).toBe(300);
    state.now += 200;
    expect(s.judge(state.now, epoch(300, 30, 200))).toBe(450);
  });

  it('holds while latency is between 1.25 and 2 times its base, and shrinks by the ratio beyond, never below min', () => {
    const { s, state } = sizer({ min: 100, max: 4000 });
    for (let n = 0; n < 5; n += 1) {
      state.now += 200;
      s.judge(state.now, epoch(s.limit, 20, 200));
    }
    expect(s.limit).toBe(507);
    // The last growth raised the rate; with the CPU busy the window does not grow again.
    state.busy = 0.95;
    state.now += 200;
    expect(s.judge(state.now, epoch(s.limit, 20, 200))).toBe(507);
    state.now += 200;
    expect(s.judge(state.now, epoch(s.limit, 30, 200))).toBe(507);
    state.now += 200;
    // Latency at 4× the base: a queue is building; 507 × 1.25 / 4.
    expect(s.judge(state.now, epoch(s.limit, 80, 400))).toBe(158);
    state.now += 400;
    expect(s.judge(state.now, epoch(s.limit, 400, 2000))).toBe(100);
    expect(s.baseMs).toBe(20);
  });

  it('takes back a growth after which latency rose by more than a quarter, and tries none for 10 epochs', () => {
    const { s, state } = sizer();
    state.now += 200;
    s.judge(state.now, epoch(300, 10, 200));
    state.now += 200;
    expect(s.judge(state.now, epoch(300, 10, 200))).toBe(450);
    // 450 in flight, answered no faster: each now takes 15 ms instead of 10 (Little's law), the extra 150 only queued.
    state.now += 200;
    expect(s.judge(state.now, epoch(450, 15, 200))).toBe(300);
    for (let n = 0; n < 10; n += 1) {
      state.now += 200;
      expect(s.judge(state.now, epoch(300, 10, 200))).toBe(300);
    }
    state.now += 200;
    expect(s.judge(state.now, epoch(300, 10, 200))).toBe(450);
    // A growth that sent more: latency held at 10-12 ms, so it stays, and the next comes.
    state.now += 200;
    expect(s.judge(state.now, epoch(450, 12, 200))).toBe(675);
    // An epoch that ran short of deliveries (a slice ending, nothing waited) neither takes a growth back nor grows.
    state.now += 200;
    expect(s.judge(state.now, { settled: 3000, heldMs: 3000 * 11, saturated: false })).toBe(675);
    expect(state.sizes).toEqual([300, 450, 300, 450, 675]);
  });

  it('takes a latency that stays higher for 10 s as its new base, and grows again from there', () => {
    const { s, state } = sizer();
    for (let n = 0; n < 3; n += 1) {
      state.now += 200;
      s.judge(state.now, epoch(s.limit, 20, 200));
    }
    expect(s.limit).toBe(675);
    // The gateway answers in 100 ms from now on, and the sender is never idle for 5 s: 5× the base, a queue as far as it can tell.
    // The growth to 675 is taken back first, then the window shrinks to min.
    state.now += 400;
    expect(s.judge(state.now, epoch(s.limit, 100, 400))).toBe(450);
    state.now += 400;
    expect(s.judge(state.now, epoch(s.limit, 100, 400))).toBe(300);
    const sizes: number[] = [];
    for (let elapsed = 800; elapsed < 9_600; elapsed += 400) {
      state.now += 400;
      sizes.push(s.judge(state.now, epoch(s.limit, 100, 400)));
    }
    // Within 10 s of the last 20 ms epoch the base is still 20 ms: the window holds at min.
    expect(new Set(sizes)).toEqual(new Set([300]));
    expect(s.baseMs).toBe(20);
    for (let n = 0; n < 4; n += 1) {
      state.now += 400;
      s.judge(state.now, epoch(s.limit, 100, 400));
    }
    expect(s.baseMs).toBe(100);
    expect(state.sizes).toEqual([300, 450, 675, 450, 300, 450, 675, 1013]);
  });

  it('judges an epoch only after 100 ms, 32 settled deliveries and three mean latencies', () => {
    const { s, state } = sizer();
    state.now = 99;
    expect(s.due(state.now, { settled: 500, heldMs: 500, saturated: true })).toBe(false);
    state.now = 150;
    expect(s.due(state.now, { settled: 31, heldMs: 31, saturated: true })).toBe(false);
    // Mean latency 60 ms: three of them take 180 ms.
    expect(s.due(state.now, { settled: 100, heldMs: 6000, saturated: true })).toBe(false);
    state.now = 180;
    expect(s.due(state.now, { settled: 100, heldMs: 6000, saturated: true })).toBe(true);
  });

  it('starts over from min with no base when told to forget', () => {
    const { s, state } = sizer();
    for (let n = 0; n < 2; n += 1) {
      state.now += 200;
      s.judge(state.now, epoch(300, 30, 200));
    }
    expect(s.limit).toBe(450);
    expect(s.forget(state.now)).toBe(300);
    expect(s.baseMs).toBe(Number.POSITIVE_INFINITY);
    expect(state.sizes.at(-1)).toBe(300);
  });

  it('refuses bounds that are not 1 ≤ min ≤ max', () => {
    expect(() => new WindowSizer({ bounds: { min: 0, max: 10 } })).toThrow(RangeError);
    expect(() => new WindowSizer({ bounds: { min: 20, max: 10 } })).toThrow(RangeError);
    expect(() => new WindowSizer({ bounds: { min: 1.5, max: 10 } })).toThrow(RangeError);
  });
});

describe('DeliveryWindow sized by a WindowSizer', () => {
  /** Runs `count` deliveries through the window, each settling `latencyMs` after it took its place, on a simulated clock. */
  function drive(window: DeliveryWindow, clock: { now: number }, count: number, latencyMs: number): number {
    let peak = 0;
    const due: { at: number }[] = [];
    let started = 0;
    let settled = 0;
    while (settled < count) {
      while (started < count && window.tryTake()) {
        due.push({ at: clock.now + latencyMs });
        started += 1;
        peak = Math.max(peak, window.inFlight);
      }
      due.sort((a, b) => a.at - b.at);
      const next = due.shift();
      if (next === undefined) break;
      clock.now = Math.max(clock.now, next.at);
      window.release();
      settled += 1;
    }
    return peak;
  }

  it('measures its deliveries and lets more be in flight against a far gateway, fewer when answers slow down', () => {
    const clock = { now: 0 };
    const sizes: number[] = [];
    const window = new DeliveryWindow(new WindowSizer({ bounds: { min: 300, max: 2000 }, now: () => clock.now, busy: () => 0.3, resized: (size) => sizes.push(size) }));
    expect(window.size).toBe(300);
    const peak = drive(window, clock, 60_000, 30);
    expect(window.size).toBe(2000);
    expect(peak).toBe(2000);
    expect(sizes).toEqual([300, 450, 675, 1013, 1520, 2000]);
    // The gateway slows to 5× its latency: the window comes down (and never lets more in than its new size).
    const slowPeak = drive(window, clock, 20_000, 150);
    expect(window.size).toBeLessThan(1000);
    expect(slowPeak).toBeLessThanOrEqual(2000);
    expect(window.inFlight).toBe(0);
  });

  it('starts over when it was idle for 5 s', () => {
    const clock = { now: 0 };
    const window = new DeliveryWindow(new WindowSizer({ bounds: { min: 300, max: 2000 }, now: () => clock.now, busy: () => 0.3 }));
    drive(window, clock, 20_000, 30);
    expect(window.size).toBeGreaterThan(300);
    clock.now += 4000;
    expect(window.tryTake()).toBe(true);
    expect(window.size).toBeGreaterThan(300);
    window.release();
    clock.now += 5001;
    expect(window.tryTake()).toBe(true);
    expect(window.size).toBe(300);
    window.release();
  });

  it('stays at min against a gateway next door when the CPU is the limit', () => {
    const clock = { now: 0 };
    const window = new DeliveryWindow(new WindowSizer({ bounds: { min: 300, max: 2000 }, now: () => clock.now, busy: () => 0.97 }));
    expect(drive(window, clock, 50_000, 2)).toBe(300);
    expect(window.size).toBe(300);
  });
});

describe('WindowSizer at its thresholds', () => {
  /** A sizer whose base is set to 20 ms by a first epoch. */
  function based(bounds = { min: 100, max: 4000 }) {
    const made = sizer(bounds);
    made.state.now += 200;
    made.s.judge(made.state.now, { settled: 100, heldMs: 2000, saturated: true });
    return made;
  }
  const at = (settled: number, latencyMs: number, saturated = true): WindowEpoch => ({ settled, heldMs: settled * latencyMs, saturated });

  it('refuses bounds that are not integers with 1 ≤ min ≤ max, naming them', () => {
    expect(() => new WindowSizer({ bounds: { min: 0, max: 10 } })).toThrow('window bounds must be integers with 1 ≤ min ≤ max, not 0..10');
    expect(() => new WindowSizer({ bounds: { min: 5, max: 4 } })).toThrow(RangeError);
    expect(() => new WindowSizer({ bounds: { min: 1.5, max: 4 } })).toThrow(RangeError);
    expect(() => new WindowSizer({ bounds: { min: 1, max: 4.5 } })).toThrow(RangeError);
  });

  it('times itself on a clock that moves when none is given', () => {
    const s = new WindowSizer({ bounds: { min: 1, max: 1 } });
    expect(typeof s.time()).toBe('number');
    expect(s.time()).toBeGreaterThan(0);
  });

  it('judges an epoch from 100 ms and 32 settled deliveries, not one less', () => {
    const { s, state } = sizer();
    state.now = 99;
    expect(s.due(state.now, at(32, 1))).toBe(false);
    state.now = 100;
    expect(s.due(state.now, at(32, 1))).toBe(true);
    expect(s.due(state.now, at(31, 1))).toBe(false);
  });

  it('keeps its size for an epoch of fewer than 32 deliveries, and counts one of exactly 32', () => {
    const { s, state } = based();
    state.now += 200;
    expect(s.judge(state.now, at(31, 200))).toBe(100);
    state.now += 200;
    expect(s.judge(state.now, at(32, 20))).toBe(150);
  });

  it('grows at exactly 1.25 times its base latency, and keeps a growth after which latency rose by exactly a quarter', () => {
    const { s, state } = based({ min: 100, max: 4000 });
    state.now += 200;
    expect(s.judge(state.now, at(100, 25))).toBe(150);
    state.now += 200;
    // The growth raised latency to exactly 1.25 × what it was: kept.
    expect(s.judge(state.now, at(100, 31.25))).toBe(150);
  });

  it('does not grow at a busy share of exactly 0.8, nor past max', () => {
    const { s, state } = based({ min: 100, max: 120 });
    state.busy = 0.8;
    state.now += 200;
    expect(s.judge(state.now, at(100, 20))).toBe(100);
    state.busy = 0.1;
    state.now += 200;
    expect(s.judge(state.now, at(100, 20))).toBe(120);
    state.now += 200;
    expect(s.judge(state.now, at(100, 20))).toBe(120);
    expect(state.sizes).toEqual([100, 120]);
  });

  it('does not grow when latency is above 1.25 times its base but below twice', () => {
    const { s, state } = based();
    state.now += 200;
    expect(s.judge(state.now, at(100, 26))).toBe(100);
  });

  it('shrinks when latency reaches exactly twice its base', () => {
    const { s, state } = based({ min: 10, max: 4000 });
    state.now += 200;
    expect(s.judge(state.now, at(100, 20))).toBe(15);
    state.now += 200;
    expect(s.judge(state.now, at(100, 20, false))).toBe(15);
    state.now += 200;
    // 15 × 1.25 / 2, at least min.
    expect(s.judge(state.now, at(100, 40))).toBe(10);
  });

  it('forgets latencies older than 10 s, keeping the newest', () => {
    const { s, state } = based();
    state.now += 10_001;
    s.judge(state.now, at(100, 50));
    expect(s.baseMs).toBe(50);
    state.now += 20_000;
    s.judge(state.now, at(100, 60));
    expect(s.baseMs).toBe(60);
  });

  it('keeps a latency exactly 10 s old', () => {
    const { s, state } = based();
    state.now += 10_000;
    s.judge(state.now, at(100, 50));
    expect(s.baseMs).toBe(20);
  });

  it('starts the busy share afresh when it forgets, so an idle spell does not count as busy or idle', () => {
    const shares = [0.1, 0.99, 0.1];
    let calls = 0;
    const s = new WindowSizer({ bounds: { min: 100, max: 4000 }, now: () => 0, busy: () => shares[calls++] ?? 0.1 });
    s.forget(0);
    expect(calls).toBe(1);
  });
});
