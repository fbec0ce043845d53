import { describe, expect, it } from 'vitest';
import { LogThrottle } from '../../../src/push/gateways/log-throttle.ts';
import { ManualClock } from '../../support/manual-clock.ts';

describe('LogThrottle', () => {
  it('lets the first line through, holds back the rest of the interval, and counts them in the next', () => {
    const clock = new ManualClock();
    const throttle = new LogThrottle({ intervalMs: 1000, clock });
    expect(throttle.admit('a')).toBe(0);
    expect(throttle.admit('a')).toBeUndefined();
    clock.advance(999);
    expect(throttle.admit('a')).toBeUndefined();
    clock.advance(1);
    expect(throttle.admit('a')).toBe(2);
    expect(throttle.admit('a')).toBeUndefined();
  });

  it('throttles each key on its own', () => {
    const clock = new ManualClock();
    const throttle = new LogThrottle({ intervalMs: 1000, clock });
    expect(throttle.admit('a')).toBe(0);
    expect(throttle.admit('b')).toBe(0);
    expect(throttle.admit('a')).toBeUndefined();
  });

  it('remembers a bounded number of keys, forgetting the oldest', () => {
    const clock = new ManualClock();
    const throttle = new LogThrottle({ intervalMs: 1000, clock });
    expect(throttle.admit('first')).toBe(0);
    for (let n = 0; n < 10_000; n += 1) throttle.admit(`key-${n}`);
    // Forgotten long ago: let through as new.
    expect(throttle.admit('first')).toBe(0);
    expect(throttle.admit('key-9999')).toBeUndefined();
  });
});
