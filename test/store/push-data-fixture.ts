import { randomBytes } from 'node:crypto';
import type { Clock } from '../../src/core/clock.ts';
import type { InstallationIndex, InstallationStore } from '../../src/core/ports/installation-store.ts';
import type { Store, StoredObject } from '../../src/core/ports/object-store.ts';
import type { PushDoc } from '../../src/core/ports/push-store.ts';

/** Shards the push-data suites open their stores with: few, so that shards hold many rows. */
export const conformanceShards = 8;

/**
 * The push-data suites' "now": real time at start, so that Cassandra's day
 * and minute partitions and TTLs line up with what the tests write.
 */
export const pushDataClock: Clock = (() => {
  const start = Date.now();
  return { now: () => start };
})();

/** An InstallationStore on the suite's data whose reads are counted. */
export interface CountingInstallations {
  installations: InstallationStore;
  /** Rows the backend answered to reads since the last reset. */
  rowsRead(): number;
  /** Bytes of the values bound to the statements that wrote since the last reset (strings as UTF-8, numbers as 8). */
  bytesWritten(): number;
  reset(): void;
}

/** What an adapter's test hands the push-data suites. */
export interface PushDataFixture {
  /** Opened with `conformanceShards` and `pushDataClock`. */
  store: Store;
  /** Another instance (its own connection or client) on the same data. */
  openAnother(): Promise<Store>;
  /** Opens the same data configured with another installation shard count. */
  openWithShards(shardCount: number): Promise<Store>;
  counting(): Promise<CountingInstallations>;
  /** Closes every instance opened and removes the backing data. */
  cleanup(): Promise<void>;
}

export interface PushDataContext {
  store(): Store;
  openAnother(): Promise<Store>;
  fixture(): PushDataFixture;
}

/** What `bytesWritten` counts for one bound value. */
export function boundBytes(value: unknown): number {
  if (value === null || value === undefined) return 0;
  if (typeof value === 'string') return Buffer.byteLength(value);
  if (typeof value === 'number' || typeof value === 'bigint') return 8;
  if (typeof value === 'boolean') return 1;
  if (Array.isArray(value)) return value.reduce((sum: number, item) => sum + boundBytes(item), 0);
  if (value instanceof Uint8Array) return value.byteLength;
  // A driver's Long and the like.
  return 8;
}

let stamp = pushDataClock.now() - 86_400_000;

/** A timestamp later than every earlier one handed out, and before the suite's now. */
export function nextTime(): string {
  stamp += 7;
  return new Date(stamp).toISOString();
}

export function newId(): string {
  return randomBytes(6).toString('hex');
}

export function newInstallation(fields: Record<string, unknown> = {}): StoredObject {
  const at = nextTime();
  return { objectId: newId(), createdAt: at, updatedAt: at, ...fields };
}

export function newPushRecord(fields: Record<string, unknown> = {}): PushDoc {
  const at = nextTime();
  return { objectId: newId(), createdAt: at, updatedAt: at, status: 'in-queue', data: { alert: 'hi' }, where: {}, ...fields };
}

/** Every installation of one index of an app, shard after shard, page after page. */
export async function readIndex(
  installations: InstallationStore,
  appId: string,
  index: InstallationIndex,
  limit = 100,
): Promise<{ found: StoredObject[]; pages: number }> {
  const found: StoredObject[] = [];
  let pages = 0;
  for (let shard = 0; shard < installations.shardCount; shard += 1) {
    let after: string | null = null;
    do {
      const page = await installations.scanShard(appId, { shard, index, after, limit });
      pages += 1;
      found.push(...page.installations);
      after = page.next;
    } while (after !== null);
  }
  return { found, pages };
}

/** The objectIds of one index of an app, sorted. */
export async function indexIds(installations: InstallationStore, appId: string, index: InstallationIndex): Promise<string[]> {
  return (await readIndex(installations, appId, index)).found.map((installation) => installation.objectId).sort();
}
