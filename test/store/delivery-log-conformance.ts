import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LoggedSlice } from '../../src/core/ports/delivery-log-store.ts';
import type { Store } from '../../src/core/ports/object-store.ts';
import { newAppId } from './store-conformance-fixture.ts';

/** What an adapter's test hands the delivery-log suite. */
export interface DeliveryLogFixture {
  store: Store;
  /** Whether expired rows go by themselves (Cassandra TTLs) rather than by `purgeExpired`. */
  expiresByItself: boolean;
  cleanup(): Promise<void>;
}

const hourMs = 3_600_000;

/** A slice written now (real time, so Cassandra's day partitions and TTLs line up). */
function slice(pushId: string, sliceKey: string, parts: Partial<LoggedSlice> = {}): LoggedSlice {
  const writtenAt = parts.writtenAt ?? Date.now();
  return {
    pushId,
    sliceKey,
    writtenAt,
    expiresAt: writtenAt + hourMs,
    counts: { failed: 1, invalidToken: 2, delivered: 3 },
    entries: { failed: Buffer.from('failed'), invalidToken: Buffer.from('invalid'), delivered: Buffer.from('delivered') },
    ranges: [{ bucket: 5, low: 'a', high: 'm', filter: Buffer.from([5, 1, 2, 3]) }],
    ...parts,
  };
}

/** The DeliveryLogStore contract, run against every adapter. */
export function describeDeliveryLogConformance(name: string, open: () => Promise<DeliveryLogFixture>): void {
  describe(`${name} delivery log`, () => {
    let fixture: DeliveryLogFixture;
    beforeAll(async () => {
      fixture = await open();
    }, 120_000);
    afterAll(async () => {
      await fixture?.cleanup();
    }, 60_000);

    it("keeps a slice's counts and its entries by outcome, reading only the outcomes asked for", async () => {
      const app = newAppId();
      const log = fixture.store.deliveries;
      const written = slice('push1', 's0/0');
      await log.writeSlice(app, written);
      expect(await log.listSlices(app, 'push1', null, 10)).toEqual([{ sliceKey: 's0/0', writtenAt: written.writtenAt, counts: written.counts }]);
      const failed = await log.readSlice(app, 'push1', 's0/0', ['failed']);
      expect(failed?.writtenAt).toBe(written.writtenAt);
      expect(Object.keys(failed?.entries ?? {})).toEqual(['failed']);
      expect(failed?.entries.failed?.toString()).toBe('failed');
      const all = await log.readSlice(app, 'push1', 's0/0', ['delivered', 'invalidToken', 'failed']);
      expect(all?.entries.delivered?.toString()).toBe('delivered');
      expect(all?.entries.invalidToken?.toString()).toBe('invalid');
      expect(await log.readSlice(app, 'push1', 's9/9', ['failed'])).toBeNull();
      expect(await log.readSlice(newAppId(), 'push1', 's0/0', ['failed'])).toBeNull();
    });

    it('keeps an outcome without entries as an empty buffer', async () => {
      const app = newAppId();
      await fixture.store.deliveries.writeSlice(app, slice('push1', 's0/0', { entries: { failed: Buffer.alloc(0), invalidToken: Buffer.alloc(0), delivered: Buffer.from('d') } }));
      const read = await fixture.store.deliveries.readSlice(app, 'push1', 's0/0', ['failed', 'delivered']);
      expect(read?.entries.failed?.length).toBe(0);
      expect(read?.entries.delivered?.toString()).toBe('d');
    });

    it('replaces what an earlier run of the same slice wrote', async () => {
      const app = newAppId();
      const log = fixture.store.deliveries;
      const first = slice('push1', 's0/0', { writtenAt: Date.now() - 5000 });
      await log.writeSlice(app, first);
      const again = slice('push1', 's0/0', { counts: { failed: 0, invalidToken: 0, delivered: 6 }, entries: { failed: Buffer.alloc(0), invalidToken: Buffer.alloc(0), delivered: Buffer.from('again') } });
      await log.writeSlice(app, again);
      expect(await log.listSlices(app, 'push1', null, 10)).toEqual([{ sliceKey: 's0/0', writtenAt: again.writtenAt, counts: again.counts }]);
      const read = await log.readSlice(app, 'push1', 's0/0', ['failed', 'delivered']);
      expect(read).toEqual({ writtenAt: again.writtenAt, entries: { failed: Buffer.alloc(0), delivered: Buffer.from('again') } });
      // The first run's range row stays beside the new one; its time tells it from the slice's.
      const ranges = await log.listRanges(app, 5, { before: null, since: 0, limit: 10 });
      expect(ranges.map((range) => range.writtenAt)).toEqual([again.writtenAt, first.writtenAt]);
    });

    it("lists a push's slices in key order, a page after a key at a time", async () => {
      const app = newAppId();
      const log = fixture.store.deliveries;
      const keys = ['s1/0', 's0/1', 's0/0', 's1/1', 's2/0'];
      for (const key of keys) await log.writeSlice(app, slice('push1', key));
      await log.writeSlice(app, slice('push2', 's0/0'));
      const first = await log.listSlices(app, 'push1', null, 2);
      expect(first.map((summary) => summary.sliceKey)).toEqual(['s0/0', 's0/1']);
      const rest = await log.listSlices(app, 'push1', 's0/1', 10);
      expect(rest.map((summary) => summary.sliceKey)).toEqual(['s1/0', 's1/1', 's2/0']);
      expect(await log.listSlices(app, 'push3', null, 10)).toEqual([]);
    });

    it("lists a bucket's ranges newest first, after a key, down to a time", async () => {
      const app = newAppId();
      const log = fixture.store.deliveries;
      const now = Date.now();
      const range = (low: string) => [{ bucket: 7, low, high: `${low}z`, filter: Buffer.from([5, 255]) }];
      await log.writeSlice(app, slice('pushA', 's0/0', { writtenAt: now - 3000, ranges: range('a') }));
      await log.writeSlice(app, slice('pushB', 's0/0', { writtenAt: now - 2000, ranges: range('b') }));
      await log.writeSlice(app, slice('pushB', 's1/0', { writtenAt: now - 2000, ranges: range('c') }));
      await log.writeSlice(app, slice('pushC', 's0/0', { writtenAt: now - 1000, ranges: [...range('d'), { bucket: 8, low: 'x', high: 'y', filter: Buffer.from([5, 1]) }] }));
      const all = await log.listRanges(app, 7, { before: null, since: 0, limit: 10 });
      expect(all.map((row) => `${row.pushId}:${row.sliceKey}:${row.low}`)).toEqual(['pushC:s0/0:d', 'pushB:s1/0:c', 'pushB:s0/0:b', 'pushA:s0/0:a']);
      expect(all[0]).toEqual({ writtenAt: now - 1000, pushId: 'pushC', sliceKey: 's0/0', low: 'd', high: 'dz', filter: Buffer.from([5, 255]) });
      const page = await log.listRanges(app, 7, { before: all[1] ?? null, since: 0, limit: 1 });
      expect(page.map((row) => row.low)).toEqual(['b']);
      const recent = await log.listRanges(app, 7, { before: null, since: now - 2000, limit: 10 });
      expect(recent.map((row) => row.low)).toEqual(['d', 'c', 'b']);
      expect((await log.listRanges(app, 8, { before: null, since: 0, limit: 10 })).map((row) => row.low)).toEqual(['x']);
      expect(await log.listRanges(newAppId(), 7, { before: null, since: 0, limit: 10 })).toEqual([]);
    });

    it("keeps a range row for each of a slice's 64 buckets, however the adapter groups their writes", async () => {
      const app = newAppId();
      const log = fixture.store.deliveries;
      const ranges = Array.from({ length: 64 }, (_, bucket) => ({ bucket, low: `a${String(bucket)}`, high: `z${String(bucket)}`, filter: Buffer.from([5, bucket]) }));
      const written = slice('wide', 's0/0', { ranges });
      await log.writeSlice(app, written);
      const read = await Promise.all(ranges.map((range) => log.listRanges(app, range.bucket, { before: null, since: 0, limit: 10 })));
      expect(read).toEqual(ranges.map((range) => [{ writtenAt: written.writtenAt, pushId: 'wide', sliceKey: 's0/0', low: range.low, high: range.high, filter: range.filter }]));
    });

    it('lets rows go once they expire', async () => {
      const app = newAppId();
      const log = fixture.store.deliveries;
      const now = Date.now();
      await log.writeSlice(app, slice('gone', 's0/0', { writtenAt: now, expiresAt: now + 1000 }));
      await log.writeSlice(app, slice('kept', 's0/0', { writtenAt: now, expiresAt: now + hourMs }));
      if (fixture.expiresByItself) {
        expect(await log.purgeExpired(now + 2000)).toBe(0);
        await expect.poll(() => log.listSlices(app, 'gone', null, 10), { timeout: 10_000, interval: 200 }).toEqual([]);
      } else {
        expect(await log.purgeExpired(now + 999)).toBe(0);
        expect(await log.purgeExpired(now + 1000)).toBe(1);
      }
      expect(await log.readSlice(app, 'gone', 's0/0', ['failed'])).toBeNull();
      expect((await log.listRanges(app, 5, { before: null, since: 0, limit: 10 })).map((row) => row.pushId)).toEqual(['kept']);
      expect(await log.listSlices(app, 'kept', null, 10)).toHaveLength(1);
    });
  });
}
