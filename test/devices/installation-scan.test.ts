import { describe, expect, it } from 'vitest';
import type { InstallationPage, InstallationStore, ShardScan } from '../../src/core/ports/installation-store.ts';
import type { StoredObject } from '../../src/core/ports/object-store.ts';
import { planInstallationScan, scanInstallations, type ScanPlan } from '../../src/devices/installation-scan.ts';
import { parseWhere } from '../../src/query/parse-query.ts';

describe('planInstallationScan', () => {
  const cases: [string, Record<string, unknown>, ScanPlan][] = [
    ['no condition', {}, { kind: 'all' }],
    ['a channel by equality', { channels: 'news' }, { kind: 'indexes', indexes: [{ kind: 'channel', channel: 'news' }] }],
    ['a channel by $all', { channels: { $all: ['a', 'b'] } }, { kind: 'indexes', indexes: [{ kind: 'channel', channel: 'a' }] }],
    ['channels by $in', { channels: { $in: ['a', 'b', 'a'] } }, { kind: 'indexes', indexes: [{ kind: 'channel', channel: 'a' }, { kind: 'channel', channel: 'b' }] }],
    ['a channel inside a top-level $and', { $and: [{ score: 1 }, { channels: 'x' }] }, { kind: 'indexes', indexes: [{ kind: 'channel', channel: 'x' }] }],
    ['a channel over a device type', { deviceType: 'ios', channels: 'x' }, { kind: 'indexes', indexes: [{ kind: 'channel', channel: 'x' }] }],
    ['a device type', { deviceType: 'android', badge: { $gt: 1 } }, { kind: 'indexes', indexes: [{ kind: 'deviceType', deviceType: 'android' }] }],
    ['device types by $in', { deviceType: { $in: ['ios'] } }, { kind: 'indexes', indexes: [{ kind: 'deviceType', deviceType: 'ios' }] }],
    ['a deviceToken', { deviceToken: 'ab', channels: 'x' }, { kind: 'device', key: { field: 'deviceToken', value: 'ab' } }],
    ['an installationId', { installationId: 'id-1' }, { kind: 'device', key: { field: 'installationId', value: 'id-1' } }],
    ['an empty $in', { channels: { $in: [] }, deviceType: 'ios' }, { kind: 'none' }],
    ['an empty $all', { tags: { $all: [] } }, { kind: 'none' }],
    ['channels only inside $or', { $or: [{ channels: 'a' }, { channels: 'b' }] }, { kind: 'all' }],
    ['a $in with a non-string', { channels: { $in: ['a', 1] } }, { kind: 'all' }],
    ['a $ne on channels', { channels: { $ne: 'a' } }, { kind: 'all' }],
    ['a nested channels path', { 'channels.x': 'a' }, { kind: 'all' }],
    ['a regex on deviceType', { deviceType: { $regex: '^i' } }, { kind: 'all' }],
  ];
  it.each(cases)('reads %s', (_name, where, plan) => {
    expect(planInstallationScan(parseWhere(where))).toEqual(plan);
  });
});

/** An in-memory store of shards of objectId-sorted installations, recording each scan. */
function fakeStore(shards: StoredObject[][]) {
  const scans: ShardScan[] = [];
  let inFlight = 0;
  let maxInFlight = 0;
  const store = {
    shardCount: shards.length,
    scanShard: async (_appId: string, scan: ShardScan): Promise<InstallationPage> => {
      scans.push(scan);
      inFlight += 1;
      maxInFlight = Math.max(maxInFlight, inFlight);
      await new Promise((resolve) => setImmediate(resolve));
      inFlight -= 1;
      const rows = (shards[scan.shard] ?? [])
        .filter((row) => scan.index.kind === 'all' || (scan.index.kind === 'channel' ? (row.channels as string[]).includes(scan.index.channel) : row.deviceType === scan.index.deviceType))
        .filter((row) => scan.after === null || row.objectId > scan.after);
      const page = rows.slice(0, scan.limit);
      return { installations: page, next: rows.length > scan.limit ? (page.at(-1)?.objectId ?? null) : null };
    },
  } as unknown as InstallationStore;
  return { store, scans, maxInFlight: () => maxInFlight };
}

function installation(objectId: string, channels: string[]): StoredObject {
  return { objectId, createdAt: '', updatedAt: '', deviceType: 'ios', channels };
}

async function collect(source: AsyncIterable<StoredObject>): Promise<string[]> {
  const ids: string[] = [];
  for await (const row of source) ids.push(row.objectId);
  return ids;
}

describe('scanInstallations', () => {
  const shards = [
    [installation('a1', ['x']), installation('a2', ['x', 'y']), installation('a3', ['y']), installation('a4', [])],
    [],
    [installation('c1', ['y']), installation('c2', ['x', 'y']), installation('c3', ['x']), installation('c4', ['x']), installation('c5', ['x'])],
  ];

  it('reads every shard in pages of the given size, following the cursors, one read at a time', async () => {
    const fake = fakeStore(shards);
    expect(await collect(scanInstallations(fake.store, 'app', { kind: 'all' }, 2))).toEqual(['a1', 'a2', 'a3', 'a4', 'c1', 'c2', 'c3', 'c4', 'c5']);
    expect(fake.scans.map((scan) => [scan.shard, scan.after, scan.limit])).toEqual([
      [0, null, 2],
      [0, 'a2', 2],
      [1, null, 2],
      [2, null, 2],
      [2, 'c2', 2],
      [2, 'c4', 2],
    ]);
    expect(fake.maxInFlight()).toBe(1);
  });

  it('answers an installation in several channels of the plan once', async () => {
    const fake = fakeStore(shards);
    const plan = planInstallationScan(parseWhere({ channels: { $in: ['y', 'x'] } }));
    const ids = await collect(scanInstallations(fake.store, 'app', plan, 3));
    expect(ids.sort()).toEqual(['a1', 'a2', 'a3', 'c1', 'c2', 'c3', 'c4', 'c5']);
  });

  it('reads nothing for a plan that matches nothing', async () => {
    const fake = fakeStore(shards);
    expect(await collect(scanInstallations(fake.store, 'app', { kind: 'none' }))).toEqual([]);
    expect(fake.scans).toEqual([]);
  });

  it('stops reading when the reader stops', async () => {
    const fake = fakeStore(shards);
    for await (const row of scanInstallations(fake.store, 'app', { kind: 'all' }, 1)) {
      if (row.objectId === 'a1') break;
    }
    // The page read ahead may have started; nothing after it.
    expect(fake.scans.length).toBeLessThanOrEqual(2);
  });
});
