import { randomUUID } from 'node:crypto';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Lease, Leases } from '../../src/core/ports/leases.ts';
import { eventually } from '../support/eventually.ts';
import type { CoordinationUnderTest } from './coordination-conformance.ts';

// Lease TTLs run on the server's clock for Redis, so no assertion here may
// depend on how fast the machine is. A lease checked as still held was taken
// for far longer than any test runs, or is checked with seconds of its TTL
// left for the calls before the check; a lease checked as lapsed is awaited,
// with a deadline, after its TTL has passed on the subject's time. On a
// manual clock every check is exact: the lease must be free the moment its
// TTL is over, since nothing moves the clock while the wait polls.

/** Outlives every test: a lease taken with it is still held at every later check. */
const held = 60_000;
/** Runs out within a test: short, so that real time waits little for it. */
const brief = 300;
/** Runs out within a test; half of it (2 s) is what a loaded machine has for the calls made halfway. */
const lapsing = 4_000;
/** How long a lapsed lease may take to show as free on a real clock. */
const lapseDeadlineMs = 10_000;

/** The behaviour every `Leases` adapter must share; lease names are random per test. */
export function describeLeaseConformance(name: string, make: () => Promise<CoordinationUnderTest>): void {
  describe(`${name} (Leases conformance)`, () => {
    let subject: CoordinationUnderTest;
    let leases: Leases;
    let lease: string;

    beforeEach(async () => {
      subject = await make();
      leases = subject.coord;
      lease = `scheduler-${randomUUID()}`;
    });

    afterEach(async () => {
      await subject.cleanup();
    });

    async function acquire(ttlMs: number): Promise<Lease> {
      const taken = await leases.acquireLease(lease, ttlMs);
      if (taken === null) throw new Error(`expected to acquire the free lease ${lease}`);
      return taken;
    }

    /** Lets `ttlMs` pass on the subject's time, then waits until another holder can take the lease, and answers that holder's lease. */
    async function takeOverOnceLapsed(ttlMs: number): Promise<Lease> {
      await subject.advance(ttlMs);
      const next = await eventually(
        `lease ${lease} to be free once its ${ttlMs} ms TTL passed`,
        () => leases.acquireLease(lease, held),
        (taken) => taken !== null,
        { timeoutMs: lapseDeadlineMs },
      );
      if (next === null) throw new Error('unreachable: eventually answers only a lease');
      return next;
    }

    it('gives a lease to one holder at a time', async () => {
      const leader = await acquire(held);
      expect(leader.name).toBe(lease);
      expect(await leases.acquireLease(lease, held)).toBeNull();
    });

    it('lets exactly one of many concurrent acquirers win', async () => {
      const results = await Promise.all(Array.from({ length: 20 }, () => leases.acquireLease(lease, held)));
      expect(results.filter((result) => result !== null)).toHaveLength(1);
    });

    it('lets another holder take the lease once it is released, and releasing twice is harmless', async () => {
      const leader = await acquire(held);
      await leader.release();
      await expect(leader.release()).resolves.toBeUndefined();
      await acquire(held);
      expect(await leases.acquireLease(lease, held)).toBeNull();
    });

    it('lets another holder take the lease once it lapsed, and the old holder can no longer keep or free it', async () => {
      const old = await acquire(brief);
      const next = await takeOverOnceLapsed(brief);
      expect(await old.extend(held)).toBe(false);
      await old.release();
      expect(await leases.acquireLease(lease, held)).toBeNull();
      expect(await next.extend(held)).toBe(true);
    });

    it('answers false to extend after release, and the release stands', async () => {
      const leader = await acquire(held);
      await leader.release();
      expect(await leader.extend(held)).toBe(false);
      await acquire(held);
    });

    it('holds a lease through its TTL, and past it while the holder extends it', async () => {
      const leader = await acquire(lapsing);
      await subject.advance(lapsing / 2);
      // Halfway: still held, and a real clock leaves the other half for these calls.
      expect(await leases.acquireLease(lease, held)).toBeNull();
      expect(await leader.extend(held)).toBe(true);
      await subject.advance(lapsing / 2);
      // The first TTL is over; only the extension holds the lease.
      expect(await leases.acquireLease(lease, held)).toBeNull();
      expect(await leader.extend(held)).toBe(true);
    });

    it('counts an extension from now, so an extension shorter than what is left lets the lease lapse sooner', async () => {
      const leader = await acquire(held);
      expect(await leader.extend(brief)).toBe(true);
      await takeOverOnceLapsed(brief);
      expect(await leader.extend(held)).toBe(false);
    });

    it('keeps leases of different names apart', async () => {
      expect(await leases.acquireLease(`${lease}:a`, held)).not.toBeNull();
      expect(await leases.acquireLease(`${lease}:b`, held)).not.toBeNull();
      expect(await leases.acquireLease(`${lease}:a`, held)).toBeNull();
    });

    it('refuses a TTL that is not positive, and a lease without a name, changing nothing', async () => {
      await expect(leases.acquireLease(lease, 0)).rejects.toThrow(new RangeError('TTL and window must be positive milliseconds, got 0'));
      await expect(leases.acquireLease('', held)).rejects.toThrow(new RangeError('a lease needs a name'));
      const leader = await acquire(held);
      await expect(leader.extend(-1)).rejects.toThrow(new RangeError('TTL and window must be positive milliseconds, got -1'));
      // The refused extension left the lease as it was: held, and extendable.
      expect(await leases.acquireLease(lease, held)).toBeNull();
      expect(await leader.extend(held)).toBe(true);
    });
  });
}
