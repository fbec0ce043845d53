import { afterEach, describe, expect, it, vi } from 'vitest';
import { MemoryCoordination } from '../../src/coord/memory/memory-coordination.ts';
import { ManualClock } from '../support/manual-clock.ts';
import { describeCoordinationConformance, manualTime, type CoordinationUnderTest } from './coordination-conformance.ts';
import { describeLeaseConformance } from './lease-conformance.ts';
import { describeTokenBucketConformance } from './token-bucket-conformance.ts';

function makeMemory(): Promise<CoordinationUnderTest> {
  const time = manualTime();
  const coord = new MemoryCoordination({ clock: time.clock });
  return Promise.resolve({ coord, ...time, cleanup: () => coord.close() });
}

describeCoordinationConformance('MemoryCoordination', makeMemory);
describeTokenBucketConformance('MemoryCoordination', makeMemory);
describeLeaseConformance('MemoryCoordination', makeMemory);

describe('MemoryCoordination housekeeping', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  function setup(): { coord: MemoryCoordination; clock: ManualClock } {
    vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval'] });
    const clock = new ManualClock();
    return { coord: new MemoryCoordination({ clock, sweepIntervalMs: 1000 }), clock };
  }

  it('purges expired keys, full buckets and lapsed leases on the sweep interval without any read', async () => {
    const { coord, clock } = setup();
    await coord.set('written-once', 'value', 100);
    await coord.recordEvent('counter', clock.now(), 100);
    await coord.takeTokens('bucket', { ratePerSecond: 10, burst: 1, requested: 1, now: clock.now() });
    await coord.acquireLease('leader', 100);
    await coord.set('long-lived', 'value', 60_000);
    clock.advance(500);
    expect(coord.size).toBe(5);
    vi.advanceTimersByTime(1000);
    expect(coord.size).toBe(1);
    expect(await coord.get('long-lived')).toBe('value');
    await coord.close();
  });

  it('drops an expired key when it is read', async () => {
    const { coord, clock } = setup();
    await coord.set('stale', 'value', 100);
    clock.advance(100);
    expect(await coord.get('stale')).toBeNull();
    expect(coord.size).toBe(0);
    await coord.close();
  });

  it('keeps only the events of the current window', async () => {
    const { coord, clock } = setup();
    const start = clock.now();
    for (let offset = 0; offset < 9; offset += 1) await coord.recordEvent('failures', start + offset * 100, 250);
    // Events at start+700 and start+800 lie in the window (start+650, start+900].
    expect(await coord.recordEvent('failures', start + 900, 250)).toBe(3);
    await coord.close();
  });

  it('counts an event recorded out of order', async () => {
    const { coord, clock } = setup();
    const start = clock.now();
    await coord.recordEvent('late', start + 200, 1000);
    expect(await coord.recordEvent('late', start + 100, 1000)).toBe(2);
    await coord.close();
  });

  // The conformance suite sees a lease lapse the moment its TTL is over; these see it held until then.
  it('holds a lease until the last millisecond of its TTL, and an extension for its TTL from then on', async () => {
    const { coord, clock } = setup();
    const lease = await coord.acquireLease('leader', 1000);
    clock.advance(999);
    expect(await coord.acquireLease('leader', 1000)).toBeNull();
    expect(await lease?.extend(1000)).toBe(true);
    clock.advance(999);
    expect(await coord.acquireLease('leader', 1000)).toBeNull();
    clock.advance(1);
    expect(await coord.acquireLease('leader', 1000)).not.toBeNull();
    expect(await lease?.extend(1000)).toBe(false);
    await coord.close();
  });

  it('stops sweeping and refuses work once closed', async () => {
    const { coord } = setup();
    await coord.close();
    expect(vi.getTimerCount()).toBe(0);
    await expect(coord.get('anything')).rejects.toThrow(new Error('coordination is closed'));
    await expect(coord.acquireLease('anything', 1000)).rejects.toThrow(new Error('coordination is closed'));
  });
});
