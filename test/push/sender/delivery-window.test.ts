import { describe, expect, it } from 'vitest';
import { DeliveryWindow, WindowedSends } from '../../../src/push/sender/delivery-window.ts';
import { WindowSizer, type WindowEpoch } from '../../../src/push/sender/window-sizer.ts';

/** A window of `size` places that never resizes. */
function fixedWindow(size: number): DeliveryWindow {
  return new DeliveryWindow(new WindowSizer({ bounds: { min: size, max: size } }));
}

describe('DeliveryWindow', () => {
  it('hands out its places at once, then one per release, to the longest waiter first', async () => {
    const window = fixedWindow(2);
    expect(window.tryTake()).toBe(true);
    await window.take();
    expect(window.tryTake()).toBe(false);
    const order: number[] = [];
    const waits = [1, 2, 3].map((n) => window.take().then(() => order.push(n)));
    expect(window.waiting).toBe(3);

    window.release();
    window.release();
    await Promise.resolve();
    expect(order).toEqual([1, 2]);
    expect(window.inFlight).toBe(2);
    window.release();
    await Promise.all(waits);
    expect(order).toEqual([1, 2, 3]);
    window.release();
    window.release();
    expect(window.inFlight).toBe(0);
  });

  it('keeps handing places over while callers never stop waiting', async () => {
    const window = fixedWindow(1);
    window.tryTake();
    let granted = 0;
    let waiter = window.take().then(() => granted++);
    for (let round = 0; round < 5000; round += 1) {
      const next = window.take().then(() => granted++);
      window.release();
      await waiter;
      waiter = next;
      expect(window.waiting).toBe(1);
    }
    window.release();
    await waiter;
    expect(granted).toBe(5001);
  });
});

describe('WindowedSends', () => {
  it('gives each place back as its delivery settles and reports the first failure once all have', async () => {
    const window = fixedWindow(3);
    const sends = new WindowedSends();
    let fail!: (error: Error) => void;
    let finish!: () => void;
    window.tryTake();
    sends.add(window, new Promise<void>((_, reject) => (fail = reject)));
    window.tryTake();
    sends.add(window, new Promise<void>((resolve) => (finish = resolve)));
    window.tryTake();
    sends.add(window, undefined);
    expect(window.inFlight).toBe(2);

    const settled = sends.settled();
    fail(new Error('rebalanced'));
    await Promise.resolve();
    expect(window.inFlight).toBe(1);
    finish();
    await expect(settled).rejects.toThrow('rebalanced');
    expect(window.inFlight).toBe(0);
  });

  it("gives each place back to the window it was taken from, when one slice sends through two gateways", async () => {
    const apns = fixedWindow(2);
    const fcm = fixedWindow(2);
    const sends = new WindowedSends();
    const finish: (() => void)[] = [];
    for (const window of [apns, fcm, fcm]) {
      expect(window.tryTake()).toBe(true);
      sends.add(window, new Promise<void>((resolve) => finish.push(resolve)));
    }
    expect([apns.inFlight, fcm.inFlight]).toEqual([1, 2]);
    expect(fcm.tryTake()).toBe(false);
    finish[1]?.();
    await Promise.resolve();
    expect([apns.inFlight, fcm.inFlight]).toEqual([1, 1]);
    const settled = sends.settled();
    finish[0]?.();
    finish[2]?.();
    await settled;
    expect([apns.inFlight, fcm.inFlight]).toEqual([0, 0]);
  });
});

/** A sizer on a manual clock that keeps the window's size and records what the window hands it. */
class RecordingSizer extends WindowSizer {
  /** The sizer's clock, in ms. */
  readonly clock: { ms: number };
  /** Copies of the epochs judged. */
  readonly judged: WindowEpoch[] = [];
  forgotten = 0;
  /** Judge after this many settled deliveries. */
  dueAfter = Number.POSITIVE_INFINITY;

  constructor(size: number, time = { ms: 0 }) {
    super({ bounds: { min: size, max: size }, now: () => time.ms, busy: () => 0 });
    this.clock = time;
  }

  override due(_now: number, epoch: WindowEpoch): boolean {
    return epoch.settled >= this.dueAfter;
  }

  override judge(now: number, epoch: WindowEpoch): number {
    this.judged.push({ ...epoch });
    return super.judge(now, epoch);
  }

  override forget(now: number): number {
    this.forgotten += 1;
    return super.forget(now);
  }
}

describe('DeliveryWindow measuring its epochs', () => {
  it('adds up deliveries in flight × time, from each take and release', () => {
    const sizer = new RecordingSizer(4);
    const window = new DeliveryWindow(sizer);
    sizer.dueAfter = 2;
    window.tryTake();
    sizer.clock.ms = 10;
    window.tryTake();
    sizer.clock.ms = 20;
    window.release();
    window.release();
    // One in flight for 10 ms, then two for 10 ms.
    expect(sizer.judged).toEqual([{ settled: 2, heldMs: 30, saturated: false }]);
  });

  it('marks an epoch saturated when a caller found the window full, and the next one when callers still wait as it starts', async () => {
    const sizer = new RecordingSizer(1);
    const window = new DeliveryWindow(sizer);
    sizer.dueAfter = 1;
    window.tryTake();
    const waiting = [window.take(), window.take()];
    window.release();
    window.release();
    await Promise.all(waiting);
    window.release();
    window.tryTake();
    window.release();
    // The first two epochs began with callers waiting (two, then one); the third began with none and none came.
    expect(sizer.judged.map((epoch) => epoch.saturated)).toEqual([true, true, true, false]);
  });

  it('starts an epoch unsaturated', () => {
    const sizer = new RecordingSizer(2);
    const window = new DeliveryWindow(sizer);
    sizer.dueAfter = 1;
    window.tryTake();
    window.release();
    expect(sizer.judged).toEqual([{ settled: 1, heldMs: 0, saturated: false }]);
  });
});

describe('DeliveryWindow after an idle spell', () => {
  it('starts over 5 s after it emptied, counted from when it emptied, not from when it was built', () => {
    const sizer = new RecordingSizer(2);
    const window = new DeliveryWindow(sizer);
    sizer.clock.ms = 4000;
    window.tryTake();
    window.release();
    sizer.clock.ms = 9000;
    window.tryTake();
    window.release();
    expect(sizer.forgotten).toBe(0);
    sizer.clock.ms = 14_001;
    window.tryTake();
    expect(sizer.forgotten).toBe(1);
  });

  it('does not start over while a delivery is still in flight, however long it takes', () => {
    const sizer = new RecordingSizer(2);
    const window = new DeliveryWindow(sizer);
    window.tryTake();
    sizer.clock.ms = 60_000;
    window.tryTake();
    expect(sizer.forgotten).toBe(0);
  });

  it('starts the epoch over when it starts over, counting only what settles after', () => {
    const sizer = new RecordingSizer(2);
    const window = new DeliveryWindow(sizer);
    window.tryTake();
    sizer.clock.ms = 10;
    window.release();
    sizer.clock.ms = 6000;
    window.tryTake();
    expect(sizer.forgotten).toBe(1);
    sizer.dueAfter = 1;
    sizer.clock.ms = 6005;
    window.release();
    expect(sizer.judged).toEqual([{ settled: 1, heldMs: 5, saturated: false }]);
  });
});

describe('DeliveryWindow queue', () => {
  it('drops the queue once every waiter has been let in', async () => {
    const window = fixedWindow(1);
    window.tryTake();
    const waits = [window.take(), window.take()];
    expect(window.queueSlots).toBe(2);
    window.release();
    await waits[0];
    expect(window.queueSlots).toBe(2);
    window.release();
    await waits[1];
    expect(window.queueSlots).toBe(0);
  });

  it('drops the handed-over front every 1024 places while callers never stop waiting, not at every release', async () => {
    const window = fixedWindow(1);
    window.tryTake();
    let waiter = window.take();
    let most = 0;
    for (let round = 0; round < 3000; round += 1) {
      const next = window.take();
      window.release();
      await waiter;
      waiter = next;
      most = Math.max(most, window.queueSlots);
    }
    expect(most).toBe(1024);
    expect(window.queueSlots).toBeLessThanOrEqual(1024);
    window.release();
    await waiter;
  });
});

describe('WindowedSends.settled', () => {
  it('resolves at once when nothing is pending', async () => {
    await expect(new WindowedSends().settled()).resolves.toBeUndefined();
  });

  it('waits while a delivery is pending, for the last one', async () => {
    const window = fixedWindow(2);
    const sends = new WindowedSends();
    const finish: (() => void)[] = [];
    for (let n = 0; n < 2; n += 1) {
      window.tryTake();
      sends.add(window, new Promise<void>((resolve) => finish.push(resolve)));
    }
    let done = false;
    const settled = sends.settled().then(() => (done = true));
    finish[0]?.();
    await new Promise((resolve) => setImmediate(resolve));
    expect(done).toBe(false);
    finish[1]?.();
    await settled;
    expect(done).toBe(true);
  });

  it('settles deliveries that end before anyone asks, and then answers at once', async () => {
    const window = fixedWindow(1);
    const sends = new WindowedSends();
    window.tryTake();
    sends.add(window, Promise.resolve());
    await new Promise((resolve) => setImmediate(resolve));
    expect(window.inFlight).toBe(0);
    await expect(sends.settled()).resolves.toBeUndefined();
  });

  it('rejects with the first failure itself', async () => {
    const window = fixedWindow(2);
    const sends = new WindowedSends();
    const first = new Error('first');
    for (const error of [first, new Error('second')]) {
      window.tryTake();
      sends.add(window, Promise.reject(error));
    }
    await expect(sends.settled()).rejects.toBe(first);
  });
});
