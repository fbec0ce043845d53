import { randomUUID } from 'node:crypto';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Leases } from '../../src/core/ports/leases.ts';
import type { CoordinationUnderTest } from './coordination-conformance.ts';

// Short enough for a real clock, long enough that a slow round trip stays inside it.
const ttl = 400;

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

    it('gives a lease to one holder at a time', async () => {
      const leader = await leases.acquireLease(lease, ttl);
      expect(leader?.name).toBe(lease);
      expect(await leases.acquireLease(lease, ttl)).toBeNull();
    });

    it('lets exactly one of many concurrent acquirers win', async () => {
      const results = await Promise.all(Array.from({ length: 20 }, () => leases.acquireLease(lease, ttl)));
      expect(results.filter((result) => result !== null)).toHaveLength(1);
    });

    it('lets another holder take the lease once it is released, and releasing twice is harmless', async () => {
      const leader = await leases.acquireLease(lease, ttl);
      await leader?.release();
      await expect(leader?.release()).resolves.toBeUndefined();
      const next = await leases.acquireLease(lease, ttl);
      expect(next).not.toBeNull();
      expect(await leases.acquireLease(lease, ttl)).toBeNull();
    });

    it('lets another holder take the lease once it expired, and the old holder can no longer keep or free it', async () => {
      const old = await leases.acquireLease(lease, ttl);
      await subject.advance(ttl + 10);
      const next = await leases.acquireLease(lease, ttl);
      expect(next).not.toBeNull();
      expect(await old?.extend(ttl)).toBe(false);
      await old?.release();
      expect(await leases.acquireLease(lease, ttl)).toBeNull();
      expect(await next?.extend(ttl)).toBe(true);
    });

    it('answers false to extend after release', async () => {
      const leader = await leases.acquireLease(lease, ttl);
      await leader?.release();
      expect(await leader?.extend(ttl)).toBe(false);
    });

    it('keeps the lease past its first TTL while the holder extends it', async () => {
      const leader = await leases.acquireLease(lease, ttl);
      await subject.advance((ttl * 2) / 3);
      expect(await leader?.extend(ttl)).toBe(true);
      await subject.advance((ttl * 2) / 3);
      // The first TTL has passed; only the extension holds it.
      expect(await leases.acquireLease(lease, ttl)).toBeNull();
      expect(await leader?.extend(ttl)).toBe(true);
    });

    it('keeps leases of different names apart', async () => {
      expect(await leases.acquireLease(`${lease}:a`, ttl)).not.toBeNull();
      expect(await leases.acquireLease(`${lease}:b`, ttl)).not.toBeNull();
    });

    it('refuses a TTL that is not positive, and a lease without a name', async () => {
      await expect(leases.acquireLease(lease, 0)).rejects.toThrow(RangeError);
      await expect(leases.acquireLease('', ttl)).rejects.toThrow(RangeError);
      const leader = await leases.acquireLease(lease, ttl);
      await expect(leader?.extend(-1)).rejects.toThrow(RangeError);
    });
  });
}
