import { describe, expect, it } from 'vitest';
import { PreconditionFailedError, ServiceUnavailableError } from '../../src/core/errors.ts';
import type { InstallationStore } from '../../src/core/ports/installation-store.ts';
import type { StoredObject } from '../../src/core/ports/object-store.ts';
import { fnv1a } from '../../src/core/fnv1a.ts';
import type { IndexChoice } from '../../src/store/installation-shards.ts';
import { conformanceShards, indexIds, newId, newInstallation, nextTime, readIndex, type PushDataContext } from './push-data-fixture.ts';
import { duplicateField, newAppId } from './store-conformance-fixture.ts';

const channel = (name: string): IndexChoice => ({ kind: 'channel', channel: name });
const deviceType = (name: string): IndexChoice => ({ kind: 'deviceType', deviceType: name });

const byObjectId = (a: { objectId: string }, b: { objectId: string }): number => (a.objectId < b.objectId ? -1 : a.objectId > b.objectId ? 1 : 0);

/** Installations: device keys, copies by channel and device type, shard pages. */
export function describeInstallationConformance(context: PushDataContext): void {
  const installations = (): InstallationStore => context.store().installations;

  /** Every index an installation may have a copy in, and whether each holds the installation as it is now. */
  const expectCopiesMatch = async (appId: string, current: StoredObject | null, objectId: string, names: { channels: string[]; types: string[] }) => {
    const store = installations();
    const indexes: IndexChoice[] = [...names.channels.map(channel), ...names.types.map(deviceType)];
    for (const index of indexes) {
      const copies = (await readIndex(store, appId, index)).found.filter((copy) => copy.objectId === objectId);
      const member =
        current !== null &&
        (index.kind === 'channel' ? Array.isArray(current.channels) && current.channels.includes(index.channel) : current.deviceType === index.deviceType);
      expect({ index, copies }).toEqual({ index, copies: member ? [current] : [] });
    }
  };

  describe('installations', () => {
    it('gets an inserted installation back by id, deviceToken and installationId', async () => {
      const store = installations();
      const appId = newAppId();
      const ios = newInstallation({ deviceType: 'ios', deviceToken: 'token-1', channels: ['news'] });
      const android = newInstallation({ deviceType: 'android', installationId: 'uuid-1' });
      await store.insert(appId, ios);
      await store.insert(appId, android);
      expect(await store.get(appId, ios.objectId)).toEqual(ios);
      expect(await store.findByDevice(appId, { field: 'deviceToken', value: 'token-1' })).toEqual(ios);
      expect(await store.findByDevice(appId, { field: 'installationId', value: 'uuid-1' })).toEqual(android);
      expect(await store.findByDevice(appId, { field: 'installationId', value: 'token-1' })).toBeNull();
      expect(await store.get(newAppId(), ios.objectId)).toBeNull();
      expect(await store.findByDevice(newAppId(), { field: 'deviceToken', value: 'token-1' })).toBeNull();
    });

    it('answers null or false for an installation that does not exist', async () => {
      const store = installations();
      const appId = newAppId();
      expect(await store.get(appId, 'missing')).toBeNull();
      expect(await store.update(appId, 'missing', [{ op: 'set', path: ['a'], value: 1 }], { updatedAt: nextTime() })).toBeNull();
      expect(await store.delete(appId, 'missing')).toBe(false);
      expect(await store.deleteIfUnchanged(appId, 'missing', nextTime())).toBe(false);
    });

    it('refuses a deviceToken, installationId or objectId another installation of the app holds, and keeps nothing of the loser', async () => {
      const store = installations();
      const appId = newAppId();
      const first = newInstallation({ deviceType: 'ios', deviceToken: 'shared-token', installationId: 'shared-id' });
      await store.insert(appId, first);
      const sameToken = newInstallation({ deviceType: 'ios', deviceToken: 'shared-token', channels: ['x'] });
      const sameId = newInstallation({ deviceType: 'android', installationId: 'shared-id', channels: ['x'] });
      expect(await duplicateField(store.insert(appId, sameToken))).toBe('deviceToken');
      expect(await duplicateField(store.insert(appId, sameId))).toBe('installationId');
      expect(await duplicateField(store.insert(appId, { ...newInstallation(), objectId: first.objectId }))).toBe('objectId');
      expect(await store.get(appId, sameToken.objectId)).toBeNull();
      expect(await store.get(appId, sameId.objectId)).toBeNull();
      expect(await indexIds(store, appId, channel('x'))).toEqual([]);
      // Another app may hold the same values.
      await store.insert(newAppId(), { ...sameToken });
    });

    it('gives a deviceToken to exactly one of two stores inserting it at once', async () => {
      const stores = [installations(), (await context.openAnother()).installations];
      const appId = newAppId();
      for (let round = 0; round < 5; round += 1) {
        const rivals = [0, 1].map(() => newInstallation({ deviceType: 'ios', deviceToken: `race-${round}`, channels: ['race'] }));
        const outcomes = await Promise.allSettled(rivals.map((rival, index) => stores[index]!.insert(appId, rival)));
        const winners = rivals.filter((_, index) => outcomes[index]?.status === 'fulfilled');
        expect(winners).toHaveLength(1);
        const loser = rivals.find((rival) => rival !== winners[0])!;
        expect(await stores[1]!.findByDevice(appId, { field: 'deviceToken', value: `race-${round}` })).toEqual(winners[0]);
        expect(await stores[0]!.get(appId, loser.objectId)).toBeNull();
      }
      expect((await readIndex(stores[0]!, appId, channel('race'))).found).toHaveLength(5);
    });

    it('updates with field operations, moves device keys and refuses one held by another installation', async () => {
      const store = installations();
      const appId = newAppId();
      const device = newInstallation({ deviceType: 'ios', deviceToken: 'old-token', channels: ['a'], badge: 1 });
      const other = newInstallation({ deviceType: 'ios', deviceToken: 'other-token' });
      await store.insert(appId, device);
      await store.insert(appId, other);
      const updatedAt = nextTime();
      const updated = await store.update(
        appId,
        device.objectId,
        [
          { op: 'set', path: ['deviceToken'], value: 'new-token' },
          { op: 'increment', path: ['badge'], amount: 2 },
          { op: 'addUnique', path: ['channels'], objects: ['a', 'b'] },
        ],
        { updatedAt },
      );
      const expected = { ...device, deviceToken: 'new-token', badge: 3, channels: ['a', 'b'], updatedAt };
      expect(updated).toEqual(expected);
      expect(await store.get(appId, device.objectId)).toEqual(expected);
      expect(await store.findByDevice(appId, { field: 'deviceToken', value: 'new-token' })).toEqual(expected);
      expect(await store.findByDevice(appId, { field: 'deviceToken', value: 'old-token' })).toBeNull();

      // The freed token can be taken; another's cannot, and a refused update changes nothing.
      await store.insert(appId, newInstallation({ deviceType: 'ios', deviceToken: 'old-token' }));
      const refused = store.update(appId, device.objectId, [{ op: 'set', path: ['deviceToken'], value: 'other-token' }, { op: 'set', path: ['channels'], value: ['z'] }], {
        updatedAt: nextTime(),
      });
      expect(await duplicateField(refused)).toBe('deviceToken');
      expect(await store.get(appId, device.objectId)).toEqual(expected);
      expect(await indexIds(store, appId, channel('z'))).toEqual([]);
    });

    it('refuses an update whose expect op no longer holds, changing nothing', async () => {
      const store = installations();
      const appId = newAppId();
      const device = newInstallation({ deviceType: 'ios', deviceToken: 'expected', channels: ['e'] });
      await store.insert(appId, device);
      const refused = store.update(
        appId,
        device.objectId,
        [
          { op: 'expect', path: ['deviceToken'], value: 'something-else' },
          { op: 'set', path: ['channels'], value: ['f'] },
        ],
        { updatedAt: nextTime() },
      );
      await expect(refused).rejects.toThrow(new PreconditionFailedError('deviceToken'));
      expect(await store.get(appId, device.objectId)).toEqual(device);
      expect(await indexIds(store, appId, channel('f'))).toEqual([]);
      const updatedAt = nextTime();
      const applied = await store.update(
        appId,
        device.objectId,
        [
          { op: 'expect', path: ['deviceToken'], value: 'expected' },
          { op: 'set', path: ['channels'], value: ['f'] },
        ],
        { updatedAt },
      );
      expect(applied).toEqual({ ...device, channels: ['f'], updatedAt });
    });

    it('keeps the channel and device-type copies equal to the installation through updates and delete', async () => {
      const store = installations();
      const appId = newAppId();
      const names = { channels: ['a', 'b', 'c'], types: ['ios', 'android'] };
      const device = newInstallation({ deviceType: 'ios', deviceToken: 'copy-token', channels: ['a', 'b'] });
      await store.insert(appId, device);
      await expectCopiesMatch(appId, device, device.objectId, names);

      const steps: Parameters<InstallationStore['update']>[2][] = [
        // A change no index sees: the index still answers the installation as it now is.
        [{ op: 'increment', path: ['badge'], amount: 1 }],
        [{ op: 'remove', path: ['channels'], objects: ['b'] }, { op: 'add', path: ['channels'], objects: ['c'] }],
        [{ op: 'set', path: ['deviceType'], value: 'android' }, { op: 'set', path: ['title'], value: 'renamed' }],
        [{ op: 'delete', path: ['channels'] }],
        [{ op: 'set', path: ['channels'], value: ['b', 'b', 'a'] }],
      ];
      for (const ops of steps) {
        const current = await store.update(appId, device.objectId, ops, { updatedAt: nextTime() });
        await expectCopiesMatch(appId, current, device.objectId, names);
      }
      expect(await store.delete(appId, device.objectId)).toBe(true);
      expect(await store.delete(appId, device.objectId)).toBe(false);
      expect(await store.get(appId, device.objectId)).toBeNull();
      expect(await store.findByDevice(appId, { field: 'deviceToken', value: 'copy-token' })).toBeNull();
      await expectCopiesMatch(appId, null, device.objectId, names);
      await store.insert(appId, newInstallation({ deviceType: 'ios', deviceToken: 'copy-token' }));
    });

    it('leaves the copies equal to the final document after many concurrent updates of one installation from two stores', async () => {
      const stores = [installations(), (await context.openAnother()).installations];
      const appId = newAppId();
      const names = { channels: ['a', 'b', 'c', 'd'], types: ['ios', 'android'] };
      for (let round = 0; round < 3; round += 1) {
        const device = newInstallation({ deviceType: 'ios', deviceToken: `busy-${round}`, channels: ['a'] });
        await stores[0]!.insert(appId, device);
        await Promise.all(
          Array.from({ length: 16 }, (_, index) => {
            const channels = names.channels.filter((_, bit) => ((index + round) >> bit) % 2 === 1);
            return stores[index % 2]!.update(
              appId,
              device.objectId,
              [
                { op: 'set', path: ['channels'], value: channels },
                { op: 'set', path: ['deviceType'], value: index % 3 === 0 ? 'android' : 'ios' },
                { op: 'increment', path: ['saves'], amount: 1 },
              ],
              { updatedAt: nextTime() },
            );
          }),
        );
        const final = await stores[1]!.get(appId, device.objectId);
        expect(final?.saves).toBe(16);
        await expectCopiesMatch(appId, final, device.objectId, names);
      }
    });

    it('ends a save racing a delete-if-unchanged either gone without copies or present with copies of its last document', async () => {
      const stores = [installations(), (await context.openAnother()).installations];
      const appId = newAppId();
      const names = { channels: ['r1', 'r2'], types: ['ios', 'android'] };
      for (let round = 0; round < 8; round += 1) {
        const device = newInstallation({ deviceType: 'ios', deviceToken: `racing-${round}`, channels: ['r1'] });
        await stores[0]!.insert(appId, device);
        const [deleted] = await Promise.all([
          stores[round % 2]!.deleteIfUnchanged(appId, device.objectId, device.updatedAt),
          stores[(round + 1) % 2]!.update(
            appId,
            device.objectId,
            [
              { op: 'set', path: ['channels'], value: ['r2'] },
              { op: 'set', path: ['deviceType'], value: 'android' },
            ],
            { updatedAt: nextTime() },
          ),
        ]);
        const final = await stores[0]!.get(appId, device.objectId);
        expect(final === null).toBe(deleted);
        await expectCopiesMatch(appId, final, device.objectId, names);
      }
    });

    it('answers 503 from every part once its store is closed', async () => {
      const closing = await context.openAnother();
      await closing.close();
      const appId = newAppId();
      for (const attempt of [
        closing.installations.get(appId, 'x'),
        closing.installations.scanShard(appId, { shard: 0, index: { kind: 'all' }, after: null, limit: 1 }),
        closing.pushes.get(appId, 'x'),
        closing.scheduled.due(Date.now(), 1),
      ]) {
        await expect(attempt).rejects.toBeInstanceOf(ServiceUnavailableError);
        await expect(attempt).rejects.toMatchObject({ status: 503, retryable: true, message: expect.stringMatching(/ is unavailable; retry later$/) });
      }
    });

    it('deletes only while the installation is unchanged', async () => {
      const store = installations();
      const appId = newAppId();
      const device = newInstallation({ deviceType: 'android', installationId: 'idle-id', channels: ['idle'] });
      await store.insert(appId, device);
      const resaved = await store.update(appId, device.objectId, [{ op: 'set', path: ['badge'], value: 0 }], { updatedAt: nextTime() });
      expect(await store.deleteIfUnchanged(appId, device.objectId, device.updatedAt)).toBe(false);
      expect(await store.get(appId, device.objectId)).toEqual(resaved);
      expect(await indexIds(store, appId, channel('idle'))).toEqual([device.objectId]);

      expect(await store.deleteIfUnchanged(appId, device.objectId, resaved!.updatedAt)).toBe(true);
      expect(await store.get(appId, device.objectId)).toBeNull();
      expect(await store.findByDevice(appId, { field: 'installationId', value: 'idle-id' })).toBeNull();
      expect(await indexIds(store, appId, channel('idle'))).toEqual([]);
      expect(await indexIds(store, appId, deviceType('android'))).toEqual([]);
    });

    it('puts every installation in exactly one shard, FNV-1a of its id, and pages through each shard once in id order', async () => {
      const store = installations();
      expect(store.shardCount).toBe(conformanceShards);
      const appId = newAppId();
      const all = Array.from({ length: 120 }, (_, index) => newInstallation({ deviceType: index % 2 === 0 ? 'ios' : 'android', channels: ['all'] }));
      await store.insertMany(appId, all);
      const seen: string[] = [];
      for (let shard = 0; shard < store.shardCount; shard += 1) {
        const inShard: string[] = [];
        let after: string | null = null;
        do {
          const page = await store.scanShard(appId, { shard, index: { kind: 'all' }, after, limit: 4 });
          if (page.next !== null) {
            expect(page.installations).toHaveLength(4);
            expect(page.next).toBe(page.installations.at(-1)?.objectId);
          }
          inShard.push(...page.installations.map((installation) => installation.objectId));
          after = page.next;
        } while (after !== null);
        expect(inShard).toEqual([...inShard].sort());
        for (const objectId of inShard) expect([store.shardOf(objectId), fnv1a(objectId) % conformanceShards]).toEqual([shard, shard]);
        seen.push(...inShard);
      }
      expect(seen.sort()).toEqual(all.map((installation) => installation.objectId).sort());

      // A page that ends exactly at the end of the shard says so.
      const shard = store.shardOf(all[0]!.objectId);
      const size = all.filter((installation) => store.shardOf(installation.objectId) === shard).length;
      const whole = await store.scanShard(appId, { shard, index: { kind: 'all' }, after: null, limit: size });
      expect([whole.installations.length, whole.next]).toEqual([size, null]);
      const short = await store.scanShard(appId, { shard, index: { kind: 'all' }, after: null, limit: size - 1 });
      const rest = await store.scanShard(appId, { shard, index: { kind: 'all' }, after: short.next, limit: size });
      expect([short.installations.length, rest.installations.length, rest.next]).toEqual([size - 1, 1, null]);

      const byType = await readIndex(store, appId, deviceType('ios'), 5);
      expect(byType.found.map((installation) => installation.objectId).sort()).toEqual(
        all.filter((installation) => installation.deviceType === 'ios').map((installation) => installation.objectId).sort(),
      );
    });

    it('pages a whole shard as stamps, objectId and updatedAt, exactly as a scan of it pages the documents', async () => {
      const store = installations();
      const appId = newAppId();
      const all = Array.from({ length: 90 }, (_, index) => newInstallation({ deviceType: 'ios', deviceToken: `stamp-${index}`, channels: ['news'] }));
      // A document without updatedAt (written by an older import, say) is stamped '' and so never taken for idle.
      const unstamped: StoredObject = { objectId: newId(), createdAt: nextTime() } as StoredObject;
      await store.insertMany(appId, [...all, unstamped]);
      const resaved = await store.update(appId, all[0]!.objectId, [{ op: 'set', path: ['badge'], value: 2 }], { updatedAt: nextTime() });
      expect(await store.delete(appId, all[1]!.objectId)).toBe(true);
      // Another app's installations are not in its pages.
      await store.insert(newAppId(), newInstallation({ deviceType: 'ios' }));

      const stamped: { objectId: string; updatedAt: string }[] = [];
      for (let shard = 0; shard < store.shardCount; shard += 1) {
        for (const limit of [3, 1000]) {
          const stamps: { objectId: string; updatedAt: string }[] = [];
          const documents: StoredObject[] = [];
          let after: string | null = null;
          do {
            const page = await store.scanShardStamps(appId, { shard, after, limit });
            const scan = await store.scanShard(appId, { shard, index: { kind: 'all' }, after, limit });
            expect(page.next).toBe(scan.next);
            expect(page.stamps.length).toBeLessThanOrEqual(limit);
            stamps.push(...page.stamps);
            documents.push(...scan.installations);
            after = page.next;
          } while (after !== null);
          expect(stamps).toEqual(documents.map((document) => ({ objectId: document.objectId, updatedAt: document.updatedAt ?? '' })));
          if (limit === 3) stamped.push(...stamps);
        }
      }
      const expected = [resaved!, ...all.slice(2), unstamped].map((installation) => ({ objectId: installation.objectId, updatedAt: installation.updatedAt ?? '' }));
      expect(stamped.sort(byObjectId)).toEqual(expected.sort(byObjectId));
      expect(stamped.find((stamp) => stamp.objectId === unstamped.objectId)?.updatedAt).toBe('');
      expect(stamped.find((stamp) => stamp.objectId === all[0]!.objectId)?.updatedAt).toBe(resaved!.updatedAt);
      await expect(store.scanShardStamps(appId, { shard: store.shardCount, after: null, limit: 1 })).rejects.toThrow();
    });

    it('reads only the subscribers of a channel: 100 among 5,000 installations', { timeout: 180_000 }, async () => {
      const store = installations();
      const appId = newAppId();
      const all = Array.from({ length: 5000 }, (_, index) =>
        newInstallation({ deviceType: index % 2 === 0 ? 'ios' : 'android', channels: index % 50 === 7 ? ['sports', 'news'] : ['news'] }),
      );
      await store.insertMany(appId, all);
      const subscribers = all.filter((installation) => (installation.channels as string[]).includes('sports'));
      expect(subscribers).toHaveLength(100);

      const counting = await context.fixture().counting();
      const { found, pages } = await readIndex(counting.installations, appId, channel('sports'), 1000);
      expect(found.map((installation) => installation.objectId).sort()).toEqual(subscribers.map((installation) => installation.objectId).sort());
      expect(found).toEqual(expect.arrayContaining(subscribers));
      // One page per shard, and no row read beyond the subscribers themselves: each at most twice (its index entry and its installation).
      expect(pages).toBe(conformanceShards);
      expect(counting.rowsRead()).toBeGreaterThanOrEqual(100);
      expect(counting.rowsRead()).toBeLessThanOrEqual(200);
    });

    it('writes about one installation, not one per channel, for a save that changes no channel and no device type', { timeout: 60_000 }, async () => {
      const counting = await context.fixture().counting();
      const store = counting.installations;
      const appId = newAppId();
      const channels = Array.from({ length: 256 }, (_, n) => `channel-${n}-`.padEnd(120, 'x'));
      const device = newInstallation({ deviceType: 'ios', deviceToken: 'many-channels', channels, timeZone: 'Europe/Paris' });
      await store.insert(appId, device);
      // The first save after an insert may confirm the insert's own index entries.
      await store.update(appId, device.objectId, [{ op: 'set', path: ['badge'], value: 0 }], { updatedAt: nextTime() });
      const size = JSON.stringify(device).length;
      const saves: [string, Parameters<InstallationStore['update']>[2]][] = [
        ['a badge', [{ op: 'set', path: ['badge'], value: 1 }]],
        [
          'a re-save of the same fields, as an SDK does on every launch',
          [
            { op: 'set', path: ['deviceToken'], value: 'many-channels' },
            { op: 'set', path: ['deviceType'], value: 'ios' },
            { op: 'set', path: ['channels'], value: channels },
            { op: 'set', path: ['timeZone'], value: 'Europe/Paris' },
          ],
        ],
        ['an increment of the badge', [{ op: 'increment', path: ['badge'], amount: 1 }]],
        ['one channel joined and one left', [{ op: 'addUnique', path: ['channels'], objects: ['joined'] }, { op: 'remove', path: ['channels'], objects: [channels[0]] }]],
      ];
      let current: StoredObject | null = null;
      for (const [what, ops] of saves) {
        counting.reset();
        current = await store.update(appId, device.objectId, ops, { updatedAt: nextTime() });
        expect({ what, written: counting.bytesWritten() > size * 0.9 && counting.bytesWritten() < size * 1.5 }).toEqual({ what, written: true });
      }
      expect((await readIndex(store, appId, channel(channels[200]!))).found).toEqual([current]);
      expect((await readIndex(store, appId, channel('joined'))).found).toEqual([current]);
      expect((await readIndex(store, appId, channel(channels[0]!))).found).toEqual([]);
      expect((await readIndex(store, appId, deviceType('ios'))).found).toEqual([current]);
    });

    it('inserts many installations with the rules of insert', async () => {
      const store = installations();
      const appId = newAppId();
      const batch = Array.from({ length: 30 }, (_, index) => newInstallation({ deviceType: 'android', installationId: `bulk-${index}` }));
      await store.insertMany(appId, batch);
      for (const installation of batch.slice(0, 3)) {
        expect(await store.findByDevice(appId, { field: 'installationId', value: installation.installationId as string })).toEqual(installation);
      }
      const clash = newInstallation({ deviceType: 'android', installationId: 'bulk-3' });
      expect(await duplicateField(store.insertMany(appId, [clash]))).toBe('installationId');
      expect(await store.get(appId, clash.objectId)).toBeNull();
      expect((await readIndex(store, appId, deviceType('android'))).found).toHaveLength(30);
    });

    it('refuses to open the store with another installation shard count', async () => {
      await expect(context.fixture().openWithShards(conformanceShards * 2)).rejects.toThrow(
        new RegExp(`created with ${conformanceShards} installation shards but is opened with ${conformanceShards * 2}`),
      );
      await expect(context.fixture().openWithShards(0)).rejects.toThrow(/installationShards must be an integer/);
    });
  });
}
