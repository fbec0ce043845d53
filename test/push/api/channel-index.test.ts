import { afterAll, beforeAll, expect, it } from 'vitest';
import type { InstallationStore, ShardScan } from '../../../src/core/ports/installation-store.ts';
import { deviceToken } from '../../support/gateways/gateway-fixtures.ts';
import { androidInstallation, iosInstallation, startPushHerald, type PushHerald } from '../support/push-herald.ts';

const total = 100_000;
const vip = Array.from({ length: 100 }, (_, n) => n * 997);
const androids = new Set(Array.from({ length: 50 }, (_, n) => 500 + n * 1999));

let p: PushHerald;
beforeAll(async () => {
  // No scheduler: its sweep reads every installation, and only the push's reads are counted here.
  p = await startPushHerald({ role: 'api,fanout,sender', engine: { installationShards: 16, sliceSize: 500 } });
  const now = p.clock.now();
  const vipSet = new Set(vip);
  await p.seed(
    Array.from({ length: total }, (_, n) => {
      const fields = { channels: vipSet.has(n) ? ['vip', 'all-users'] : ['all-users'] };
      return androids.has(n) ? androidInstallation(n, now, fields) : iosInstallation(n, now, fields);
    }),
  );
}, 600_000);
afterAll(async () => {
  await p?.close();
});

/** Counts what the engine reads through `scanShard` while it is installed. */
function watchScans(installations: InstallationStore) {
  const original = installations.scanShard.bind(installations);
  const stats = { calls: 0, rows: 0, indexes: new Set<string>() };
  installations.scanShard = async (appId: string, scan: ShardScan) => {
    stats.calls += 1;
    stats.indexes.add(scan.index.kind === 'all' ? 'all' : scan.index.kind === 'channel' ? `channel:${scan.index.channel}` : `deviceType:${scan.index.deviceType}`);
    const page = await original(appId, scan);
    stats.rows += page.installations.length;
    return page;
  };
  return { stats, restore: () => void (installations.scanShard = original) };
}

it('reads only the channel’s index rows for a push to 100 of 100,000 devices', async () => {
  const watch = watchScans(p.h.herald.runtime.store.installations);
  try {
    const res = await p.send({ channels: ['vip'], data: { alert: 'For our best customers' } });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(await p.settled(res.body.objectId)).toMatchObject({ devices: 100, successes: 100, errors: 0 });
    expect(watch.stats.rows).toBe(100);
    expect([...watch.stats.indexes]).toEqual(['channel:vip']);
  } finally {
    watch.restore();
  }
  expect(vip.every((n) => p.fakes.apns.log.countOf(deviceToken(n)) === 1)).toBe(true);
  expect(p.fakes.apns.log.deliveryCount).toBe(100);
}, 60_000);

it('reads only the device type’s index rows for a push to one device type', async () => {
  const watch = watchScans(p.h.herald.runtime.store.installations);
  try {
    const res = await p.send({ where: { deviceType: 'android' }, data: { alert: 'Android users' } });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(await p.settled(res.body.objectId)).toMatchObject({ devices: 50, successes: 50, androidSuccesses: 50 });
    expect(watch.stats.rows).toBe(50);
    expect([...watch.stats.indexes]).toEqual(['deviceType:android']);
  } finally {
    watch.restore();
  }
}, 60_000);
