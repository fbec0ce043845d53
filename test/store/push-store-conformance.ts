import { describe, expect, it } from 'vitest';
import type { PushCounts, PushDoc, PushStore } from '../../src/core/ports/push-store.ts';
import { newPushRecord, nextTime, pushDataClock, type PushDataContext } from './push-data-fixture.ts';
import { duplicateField, newAppId } from './store-conformance-fixture.ts';

const zero: PushCounts = { devices: 0, successes: 0, errors: 0, invalidTokens: 0, iosSuccesses: 0, androidSuccesses: 0, errorReasons: {} };
const slice: PushCounts = {
  devices: 10,
  successes: 7,
  errors: 2,
  invalidTokens: 1,
  iosSuccesses: 4,
  androidSuccesses: 3,
  errorReasons: { BadDeviceToken: 1, Unavailable: 1 },
};

function times(counts: PushCounts, n: number): PushCounts {
  return {
    devices: counts.devices * n,
    successes: counts.successes * n,
    errors: counts.errors * n,
    invalidTokens: counts.invalidTokens * n,
    iosSuccesses: counts.iosSuccesses * n,
    androidSuccesses: counts.androidSuccesses * n,
    errorReasons: Object.fromEntries(Object.entries(counts.errorReasons).map(([reason, count]) => [reason, count * n])),
  };
}

/** Push records: counters summed from result rows, status derived, fields set, listing. */
export function describePushConformance(context: PushDataContext): void {
  const pushes = (): PushStore => context.store().pushes;

  describe('push records', () => {
    it('gets an inserted record back with zero counters, and refuses its objectId twice', async () => {
      const store = pushes();
      const appId = newAppId();
      const record = newPushRecord({ notificationId: 'n1', prod: 'dev', expectedTasks: 3 });
      await store.insert(appId, record);
      expect(await store.get(appId, record.objectId)).toEqual({ ...record, ...zero });
      expect(await duplicateField(store.insert(appId, { ...newPushRecord(), objectId: record.objectId }))).toBe('objectId');
      expect(await store.get(appId, record.objectId)).toEqual({ ...record, ...zero });
      expect(await store.get(newAppId(), record.objectId)).toBeNull();
      expect(await store.get(appId, 'missing')).toBeNull();
    });

    it('sums 50 slices reported at once through two stores, 10 of them twice, exactly; done only when every task ended', async () => {
      const stores = [pushes(), (await context.openAnother()).pushes];
      const appId = newAppId();
      const record = newPushRecord({ status: 'in-queue', expectedTasks: 10 });
      await stores[0]!.insert(appId, record);
      // 10 tasks of 5 slices; the 5th slice of each is final. Task 9's final slice comes last.
      const reports = Array.from({ length: 50 }, (_, index) => ({
        sliceKey: `task${Math.floor(index / 5)}/${index % 5}`,
        counts: slice,
        final: index % 5 === 4,
      }));
      const lastFinal = reports.pop()!;
      await Promise.all([...reports, ...reports.slice(0, 10)].map((report, index) => stores[index % 2]!.recordSlice(appId, record.objectId, report)));
      expect(await stores[1]!.get(appId, record.objectId)).toEqual({ ...record, ...times(slice, 49), status: 'in-queue' });

      await Promise.all([lastFinal, lastFinal, ...reports.slice(20, 30)].map((report, index) => stores[index % 2]!.recordSlice(appId, record.objectId, report)));
      expect(await stores[0]!.get(appId, record.objectId)).toEqual({ ...record, ...times(slice, 50), status: 'done' });
    });

    it('lets a redelivered slice replace what it reported before', async () => {
      const store = pushes();
      const appId = newAppId();
      const record = newPushRecord({ expectedTasks: 1 });
      await store.insert(appId, record);
      await store.recordSlice(appId, record.objectId, { sliceKey: 't/0', counts: slice, final: false });
      const again: PushCounts = { ...zero, devices: 3, successes: 3, iosSuccesses: 3, errorReasons: { TooManyRequests: 2 } };
      await store.recordSlice(appId, record.objectId, { sliceKey: 't/0', counts: again, final: true });
      expect(await store.get(appId, record.objectId)).toEqual({ ...record, ...again, status: 'done' });
    });

    it('answers one reported slice with its continuation, and the stored record without summing', async () => {
      const store = pushes();
      const appId = newAppId();
      const record = newPushRecord({ expectedTasks: 2 });
      await store.insert(appId, record);
      expect(await store.getSlice(appId, record.objectId, 't/0')).toBeNull();
      await store.recordSlice(appId, record.objectId, { sliceKey: 't/0', counts: slice, final: false, next: 'obj-0999' });
      await store.recordSlice(appId, record.objectId, { sliceKey: 't/1', counts: slice, final: true, next: null });
      await store.recordSlice(appId, record.objectId, { sliceKey: 'u/0', counts: slice, final: true });
      expect(await store.getSlice(appId, record.objectId, 't/0')).toEqual({ final: false, next: 'obj-0999', counts: slice, unregistered: [] });
      expect(await store.getSlice(appId, record.objectId, 't/1')).toEqual({ final: true, next: null, counts: slice, unregistered: [] });
      expect(await store.getSlice(appId, record.objectId, 'u/0')).toEqual({ final: true, next: null, counts: slice, unregistered: [] });
      expect(await store.getSlice(newAppId(), record.objectId, 't/0')).toBeNull();
      // The continuation does not leak into the counters.
      expect(await store.get(appId, record.objectId)).toEqual({ ...record, ...times(slice, 3), status: 'done' });
      expect(await store.getRecord(appId, record.objectId)).toEqual(record);
      await store.setFields(appId, record.objectId, { status: 'Error' }, record.updatedAt);
      expect((await store.getRecord(appId, record.objectId))?.status).toBe('Error');
      await store.delete(appId, record.objectId);
      expect(await store.getRecord(appId, record.objectId)).toBeNull();
      expect(await store.getSlice(appId, record.objectId, 't/0')).toBeNull();
    });

    it('keeps the installations a slice has yet to remove with it until it is recorded again without them, apart from the counts', async () => {
      const store = pushes();
      const appId = newAppId();
      const record = newPushRecord({ expectedTasks: 1 });
      await store.insert(appId, record);
      const unregistered = Array.from({ length: 300 }, (_, n) => ({ objectId: `inst-${n}`, updatedAt: new Date(Date.UTC(2026, 10, 1, 0, 0, n)).toISOString() }));
      const result = { sliceKey: 't/0', counts: slice, final: true, next: null, unregistered };
      await store.recordSlice(appId, record.objectId, result);
      expect(await store.getSlice(appId, record.objectId, 't/0')).toEqual({ final: true, next: null, counts: slice, unregistered });
      expect(await store.get(appId, record.objectId)).toEqual({ ...record, ...slice, status: 'done' });
      await store.recordSlice(appId, record.objectId, { ...result, unregistered: [] });
      expect(await store.getSlice(appId, record.objectId, 't/0')).toEqual({ final: true, next: null, counts: slice, unregistered: [] });
      expect(await store.get(appId, record.objectId)).toEqual({ ...record, ...slice, status: 'done' });
    });

    it.each([
      ['scheduled', { status: 'scheduled', expectedTasks: 1 }, 1, 'scheduled'],
      ['Error', { status: 'Error', errorMessage: 'dev profile disabled for massive push', expectedTasks: 1 }, 1, 'Error'],
      ['in-queue without expectedTasks', { status: 'in-queue' }, 1, 'in-queue'],
      ['in-queue, 2 of 3 tasks ended', { status: 'in-queue', expectedTasks: 3 }, 2, 'in-queue'],
      ['in-queue, 0 tasks expected', { status: 'in-queue', expectedTasks: 0 }, 0, 'done'],
      ['given up, then marked in-queue by a later write, every task ended', { status: 'in-queue', expectedTasks: 2, _gaveUp: true }, 2, 'Error'],
    ] as const)('derives the status of a record %s', async (_title, fields, finals, status) => {
      const store = pushes();
      const appId = newAppId();
      const record = newPushRecord(fields);
      await store.insert(appId, record);
      for (let task = 0; task < finals; task += 1) await store.recordSlice(appId, record.objectId, { sliceKey: `t${task}/0`, counts: zero, final: true });
      expect((await store.get(appId, record.objectId))?.status).toBe(status);
    });

    it('sets fields of a record, concurrent changes of different fields included, but not its identity', async () => {
      const stores = [pushes(), (await context.openAnother()).pushes];
      const appId = newAppId();
      const record = newPushRecord({ status: 'scheduled', notificationId: 'keep' });
      await stores[0]!.insert(appId, record);
      const updatedAt = nextTime();
      const changed = await Promise.all([
        stores[0]!.setFields(appId, record.objectId, { status: 'in-queue' }, updatedAt),
        stores[1]!.setFields(appId, record.objectId, { expectedTasks: 4, requestId: { nested: [1, 2] } }, updatedAt),
      ]);
      expect(changed).toEqual([true, true]);
      expect(await stores[1]!.setFields(appId, record.objectId, { objectId: 'other', createdAt: nextTime(), notificationId: 'other' }, updatedAt)).toBe(true);
      expect(await stores[0]!.get(appId, record.objectId)).toEqual({
        ...record,
        ...zero,
        status: 'in-queue',
        expectedTasks: 4,
        requestId: { nested: [1, 2] },
        updatedAt,
      });
      expect((await stores[0]!.findByNotificationId(appId, 'keep')).map((found) => found.objectId)).toEqual([record.objectId]);
    });

    it('deletes a record with its results, and never brings it back by setting fields', async () => {
      const store = pushes();
      const appId = newAppId();
      const record = newPushRecord({ notificationId: 'gone' });
      await store.insert(appId, record);
      await store.recordSlice(appId, record.objectId, { sliceKey: 't/0', counts: slice, final: true });
      expect(await store.delete(appId, record.objectId)).toBe(true);
      expect(await store.delete(appId, record.objectId)).toBe(false);
      expect(await store.setFields(appId, record.objectId, { status: 'done' }, nextTime())).toBe(false);
      expect(await store.get(appId, record.objectId)).toBeNull();
      expect(await store.findByNotificationId(appId, 'gone')).toEqual([]);
      // A late slice of the deleted push is harmless and never seen.
      await store.recordSlice(appId, record.objectId, { sliceKey: 't/1', counts: slice, final: true });
      expect(await store.get(appId, record.objectId)).toBeNull();
      expect(await collect(store.scan(appId))).toEqual([]);
    });

    it('finds the records of a notificationId, newest first, with their totals', async () => {
      const store = pushes();
      const appId = newAppId();
      const group = [newPushRecord({ notificationId: 'group' }), newPushRecord({ notificationId: 'group' }), newPushRecord({ notificationId: 'group' })];
      const other = newPushRecord({ notificationId: 'other' });
      for (const record of [...group, other]) await store.insert(appId, record);
      await store.recordSlice(appId, group[1]!.objectId, { sliceKey: 't/0', counts: slice, final: false });
      expect(await store.findByNotificationId(appId, 'group')).toEqual([
        { ...group[2], ...zero },
        { ...group[1], ...slice },
        { ...group[0], ...zero },
      ]);
      expect(await store.findByNotificationId(appId, 'nothing')).toEqual([]);
      expect(await store.findByNotificationId(newAppId(), 'group')).toEqual([]);
    });

    it('scans every live record of an app newest first, over many pages and days', { timeout: 120_000 }, async () => {
      const store = pushes();
      const appId = newAppId();
      const now = pushDataClock.now();
      // 240 records ten minutes apart: 40 hours, so they span two or three days.
      const records = Array.from({ length: 240 }, (_, index) => {
        const at = new Date(now - 60_000 - index * 600_000).toISOString();
        return newPushRecord({ createdAt: at, updatedAt: at, notificationId: `n${index % 7}` });
      });
      await Promise.all(records.map((record) => store.insert(appId, record)));
      await store.insert(newAppId(), newPushRecord());
      const deleted = records.filter((_, index) => index % 10 === 3);
      for (const record of deleted) await store.delete(appId, record.objectId);
      await store.recordSlice(appId, records[0]!.objectId, { sliceKey: 't/0', counts: slice, final: false });

      const scanned = await collect(store.scan(appId));
      const live = records.filter((record) => !deleted.includes(record));
      expect(scanned.map((record) => record.objectId)).toEqual(live.map((record) => record.objectId));
      expect(scanned[0]).toEqual({ ...records[0], ...slice });

      // A reader may stop early.
      const first: PushDoc[] = [];
      for await (const record of store.scan(appId)) {
        first.push(record);
        if (first.length === 3) break;
      }
      expect(first.map((record) => record.objectId)).toEqual(live.slice(0, 3).map((record) => record.objectId));
    });
  });
}

async function collect<T>(items: AsyncIterable<T>): Promise<T[]> {
  const all: T[] = [];
  for await (const item of items) all.push(item);
  return all;
}
