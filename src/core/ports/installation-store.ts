import type { FieldOp, StoredObject, UpdateOptions } from './object-store.ts';

/** Most installations `findByRegistrationId` answers: more sharing one token is a broken client, not devices. */
export const maxRegistrationHolders = 10;

/** One of the two unique device identities of an installation within an app. */
export interface DeviceKey {
  field: 'deviceToken' | 'installationId';
  value: string;
}

/** Which rows of a shard to read: all, the subscribers of one channel, or one device type. */
export type InstallationIndex = { kind: 'all' } | { kind: 'channel'; channel: string } | { kind: 'deviceType'; deviceType: string };

/** One page of one shard of one index, in `objectId` order. */
export interface ShardScan {
  /** 0 ≤ shard < `shardCount`. */
  shard: number;
  index: InstallationIndex;
  /** Read the installations whose objectId sorts after this one; null for the start of the shard. */
  after: string | null;
  /** At most this many installations (≥ 1). */
  limit: number;
}

export interface InstallationPage {
  /** Whole installation documents (for an index: those it holds, as they are now), in ascending `objectId` order. */
  installations: StoredObject[];
  /** The `after` of the next page, or null when the shard has nothing after this page. */
  next: string | null;
}

/** Where one page of a whole shard starts and how long it is, for reads that take every installation. */
export type ShardRange = Omit<ShardScan, 'index'>;

/** What the idle sweep needs of an installation: which it is and when it was last saved. */
export interface InstallationStamp {
  objectId: string;
  /** As stored; '' when the document has none (never idle then). */
  updatedAt: string;
}

export interface StampPage {
  /** In ascending `objectId` order. */
  stamps: InstallationStamp[];
  /** The `after` of the next page, or null when the shard has nothing after this page. */
  next: string | null;
}

/**
 * `_Installation` objects of every app, spread over `shardCount` shards by
 * `shardOf(objectId)`, indexed by channel and by device type so that a push
 * to a channel reads only its subscribers, and by registrationId so that a
 * push to a maker's tokens finds their installations.
 *
 * `deviceToken` and `installationId` (when present as strings) are unique per
 * app: a write that would take one held by another installation throws
 * `DuplicateValueError` naming the field and changes nothing. A page of an
 * index answers the installations as they are, only those still in it; the
 * index follows every write that changes a channel, the device type or the
 * registrationId, and after a crash in the middle of such a write an
 * installation may be missing from an index it joined until it is written
 * again. A write that changes none should cost about one installation,
 * however many channels it has (the SDKs save on every launch).
 */
export interface InstallationStore {
  /** Fixed when the store was created; opening it with another count is refused. */
  readonly shardCount: number;
  /** The shard of an installation: FNV-1a of its objectId, modulo `shardCount`. */
  shardOf(objectId: string): number;
  /** Throws DuplicateValueError('objectId' | 'deviceToken' | 'installationId'). */
  insert(appId: string, installation: StoredObject): Promise<void>;
  /**
   * Bulk seeding (imports, benchmarks): the same rules as `insert`, row by
   * row. Not atomic across rows: when one fails, those before it may be stored.
   */
  insertMany(appId: string, installations: StoredObject[]): Promise<void>;
  get(appId: string, objectId: string): Promise<StoredObject | null>;
  findByDevice(appId: string, key: DeviceKey): Promise<StoredObject | null>;
  /**
   * The installations holding `registrationId` (a phone maker's or FCM's
   * token), in objectId order, at most `maxRegistrationHolders`: unlike the
   * device keys it is not unique, as two installations may hold one.
   */
  findByRegistrationId(appId: string, registrationId: string): Promise<StoredObject[]>;
  /** Applies `ops` in order; answers the new document, or null when there is no such installation. */
  update(appId: string, objectId: string, ops: FieldOp[], options: UpdateOptions): Promise<StoredObject | null>;
  /** Answers whether an installation was deleted. */
  delete(appId: string, objectId: string): Promise<boolean>;
  /**
   * Deletes only while `updatedAt` is still the stored one: a device saved
   * again since is kept (invalid-token cleanup, idle sweep). Answers whether
   * it deleted.
   */
  deleteIfUnchanged(appId: string, objectId: string, updatedAt: string): Promise<boolean>;
  /** One page of a shard; memory and reads are bounded by `limit`. */
  scanShard(appId: string, scan: ShardScan): Promise<InstallationPage>;
  /**
   * The same page of a whole shard as `scanShard` with `index: all`, but only
   * each installation's objectId and updatedAt: a sweep over every
   * installation of an app then builds no documents it would throw away.
   */
  scanShardStamps(appId: string, range: ShardRange): Promise<StampPage>;
}
