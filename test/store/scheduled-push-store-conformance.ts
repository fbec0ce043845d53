import { afterEach, describe, expect, it } from 'vitest';
import type { ScheduledPush, ScheduledPushStore } from '../../src/core/ports/scheduled-push-store.ts';
import { newId, nextTime, pushDataClock, type PushDataContext } from './push-data-fixture.ts';
import { duplicateField, newAppId } from './store-conformance-fixture.ts';

const minute = 60_000;
let nextEntryId = 1;

/** Scheduled pushes: per-app listing and cancelling, and what is due. */
export function describeScheduledPushConformance(context: PushDataContext): void {
  const scheduled = (): ScheduledPushStore => context.store().scheduled;
  // `due` reads across apps, so every test takes its entries away again.
  const added: ScheduledPush[] = [];
  const add = async (appId: string, dueAt: number, store = scheduled()): Promise<ScheduledPush> => {
    const pushId = newId();
    const entry: ScheduledPush = {
      id: nextEntryId++ * 1000 + Math.floor(Math.random() * 1000),
      appId,
      pushId,
      dueAt,
      createdAt: nextTime(),
      message: { id: pushId, notificationId: 'n1', 'app-id': appId, 'api-version': '1.1', prod: 'prod', msg: { alert: 'hi' }, where: {} },
    };
    await store.add(entry);
    added.push(entry);
    return entry;
  };

  afterEach(async () => {
    for (const entry of added.splice(0)) await scheduled().remove(entry.appId, entry.id);
  });

  describe('scheduled pushes', () => {
    it('lists an app\'s waiting entries soonest first, gets one by id, and refuses an id twice', async () => {
      const store = scheduled();
      const appId = newAppId();
      const now = pushDataClock.now();
      const later = await add(appId, now + 60 * minute);
      const sooner = await add(appId, now + 2 * minute);
      const latest = await add(appId, now + 24 * 60 * minute);
      await add(newAppId(), now + minute);
      expect(await store.listForApp(appId)).toEqual([sooner, later, latest]);
      expect(await store.get(appId, later.id)).toEqual(later);
      expect(await store.get(newAppId(), later.id)).toBeNull();
      expect(await duplicateField(store.add({ ...sooner, dueAt: now + 5 * minute, pushId: 'other' }))).toBe('id');
      expect(await store.get(appId, sooner.id)).toEqual(sooner);
      expect(await store.listForApp(newAppId())).toEqual([]);
    });

    it('answers what is due across apps, oldest first, at most limit, and keeps it until removed', async () => {
      const store = scheduled();
      const now = pushDataClock.now() + 30 * minute;
      const [first, second] = [newAppId(), newAppId()];
      const due = [await add(second, now - 3 * minute), await add(first, now - 90_000), await add(first, now)];
      await add(first, now + 1);
      await add(second, now + 2 * minute);
      expect(await store.due(now, 10)).toEqual(due);
      expect(await store.due(now, 2)).toEqual(due.slice(0, 2));
      expect(await store.due(now - 3 * minute - 1, 10)).toEqual([]);
      expect(await store.remove(second, due[0]!.id)).toEqual(due[0]);
      expect(await store.due(now, 10)).toEqual(due.slice(1));
      expect(await store.due(now + 2 * minute, 10)).toHaveLength(4);
    });

    it('gives an entry to exactly one of many concurrent removes through two stores', async () => {
      const stores = [scheduled(), (await context.openAnother()).scheduled];
      const appId = newAppId();
      const now = pushDataClock.now() + 60 * minute;
      const entry = await add(appId, now - minute);
      const removed = await Promise.all(Array.from({ length: 8 }, (_, index) => stores[index % 2]!.remove(appId, entry.id)));
      expect(removed.filter((each) => each !== null)).toEqual([entry]);
      expect(await stores[0]!.get(appId, entry.id)).toBeNull();
      expect(await stores[1]!.listForApp(appId)).toEqual([]);
      expect(await stores[0]!.due(now, 10)).toEqual([]);
      expect(await stores[0]!.remove(appId, entry.id)).toBeNull();
      expect(await stores[0]!.remove(appId, 424242)).toBeNull();
    });
  });
}
