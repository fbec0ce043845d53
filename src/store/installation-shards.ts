import type { DeviceKey, InstallationIndex, InstallationStamp } from '../core/ports/installation-store.ts';
import type { StoredObject } from '../core/ports/object-store.ts';
import { fnv1a } from '../core/fnv1a.ts';

/** Shards per app unless configured; recorded in the store when it is created. */
export const defaultInstallationShards = 64;

/** The shard of an installation among `shardCount`. */
export function installationShard(objectId: string, shardCount: number): number {
  return fnv1a(objectId) % shardCount;
}

/** Answers a valid shard count, or throws naming the bad value. */
export function checkShardCount(shardCount: number): number {
  if (!Number.isInteger(shardCount) || shardCount < 1 || shardCount > 65_536) {
    throw new Error(`installationShards must be an integer from 1 to 65536, not ${String(shardCount)}`);
  }
  return shardCount;
}

/** The refusal when a store created with one shard count is opened with another. */
export function shardCountMismatch(stored: number, configured: number): Error {
  return new Error(
    `this store was created with ${stored} installation shards but is opened with ${configured}; ` +
      `changing the count would strand installations in the shards they were written to, so configure ${stored}`,
  );
}

/** Throws unless `shard` and `limit` make a readable page. */
export function checkShardScan(shard: number, limit: number, shardCount: number): void {
  if (!Number.isInteger(shard) || shard < 0 || shard >= shardCount) throw new RangeError(`shard ${shard} is not in 0..${shardCount - 1}`);
  if (!Number.isInteger(limit) || limit < 1) throw new RangeError(`scan limit ${limit} must be a positive integer`);
}

/**
 * A shard page from the rows read after its cursor, `limit + 1` at most (one
 * row more than asked tells whether the shard goes on): the first `limit`, read
 * by `read`, and the cursor of the next page, or null at the end of the shard.
 */
export function pageOf<R, T extends { objectId: string }>(rows: readonly R[], limit: number, read: (row: R) => T): { items: T[]; next: string | null } {
  const items = rows.slice(0, limit).map(read);
  return { items, next: rows.length > limit ? (items.at(-1)?.objectId ?? null) : null };
}

/** The channels an installation is indexed under: its distinct string `channels`. */
export function installationChannels(installation: Readonly<StoredObject>): string[] {
  const channels = installation.channels;
  if (!Array.isArray(channels)) return [];
  return [...new Set(channels.filter((channel): channel is string => typeof channel === 'string'))];
}

/** The device type an installation is indexed under, if it has one. */
export function installationDeviceType(installation: Readonly<StoredObject>): string | null {
  return typeof installation.deviceType === 'string' ? installation.deviceType : null;
}

/** The unique device identities an installation holds. */
export function deviceKeys(installation: Readonly<StoredObject>): DeviceKey[] {
  const keys: DeviceKey[] = [];
  for (const field of ['deviceToken', 'installationId'] as const) {
    const value = installation[field];
    if (typeof value === 'string') keys.push({ field, value });
  }
  return keys;
}

/** An index other than `all`: one channel or one device type. */
export type IndexChoice = Exclude<InstallationIndex, { kind: 'all' }>;

/** What an index entry names an installation under: an index a shard page reads, or the registrationId it is found by. */
export type IndexEntry = IndexChoice | { kind: 'registrationId'; registrationId: string };

/** An index entry as one string, `c:<channel>`, `t:<deviceType>` or `r:<registrationId>`, for storing sets of them. */
export function indexKey(index: IndexEntry): string {
  switch (index.kind) {
    case 'channel':
      return `c:${index.channel}`;
    case 'deviceType':
      return `t:${index.deviceType}`;
    case 'registrationId':
      return `r:${index.registrationId}`;
  }
}

export function parseIndexKey(key: string): IndexEntry {
  const name = key.slice(2);
  if (key.startsWith('c:')) return { kind: 'channel', channel: name };
  if (key.startsWith('t:')) return { kind: 'deviceType', deviceType: name };
  if (key.startsWith('r:')) return { kind: 'registrationId', registrationId: name };
  throw new Error(`not an installation index key: ${JSON.stringify(key)}`);
}

/**
 * The registrationId an installation is found by (`findByRegistrationId`):
 * its non-empty string `registrationId`. Not unique: two installations may
 * hold one (an app reinstalled, a device restored), so it is an index entry
 * rather than a claimed device key.
 */
export function installationRegistrationId(installation: Readonly<StoredObject>): string | null {
  const registrationId = installation.registrationId;
  return typeof registrationId === 'string' && registrationId !== '' ? registrationId : null;
}

/** Whether an installation belongs in an index: subscribed to its channel, or of its device type. */
export function inIndex(installation: Readonly<StoredObject>, index: IndexChoice): boolean {
  if (index.kind === 'deviceType') return installationDeviceType(installation) === index.deviceType;
  const channels = installation.channels;
  return Array.isArray(channels) && channels.includes(index.channel);
}

/** Every index an installation has an entry (or an index row) in: its channels, its device type, its registrationId. */
export function installationIndexKeys(installation: Readonly<StoredObject>): string[] {
  const keys = installationChannels(installation).map((channel) => indexKey({ kind: 'channel', channel }));
  const deviceType = installationDeviceType(installation);
  if (deviceType !== null) keys.push(indexKey({ kind: 'deviceType', deviceType }));
  const registrationId = installationRegistrationId(installation);
  if (registrationId !== null) keys.push(indexKey({ kind: 'registrationId', registrationId }));
  return keys;
}

/** An installation's stamp as `scanShardStamps` answers it: an updatedAt that is not a string (or none) is ''. */
export function stamp(objectId: string, updatedAt: unknown): InstallationStamp {
  return { objectId, updatedAt: typeof updatedAt === 'string' ? updatedAt : '' };
}
