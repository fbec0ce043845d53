import { describe, expect, it } from 'vitest';
import { DeliveryWindow, WindowedSends } from '../../../src/push/sender/delivery-window.ts';
import { WindowSizer } from '../../../src/push/sender/window-sizer.ts';

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
