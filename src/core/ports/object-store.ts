import type { Query } from '../../query/query.ts';
import type { DeliveryLogStore } from './delivery-log-store.ts';
import type { InstallationStore } from './installation-store.ts';
import type { PushStore } from './push-store.ts';
import type { ScheduledPushStore } from './scheduled-push-store.ts';

/** A stored object: JSON fields plus the three the service always sets. */
export interface StoredObject {
  objectId: string;
  createdAt: string;
  updatedAt: string;
  [field: string]: unknown;
}

/** A value that at most one object of a class may hold in an app. */
export interface UniqueKey {
  /** Name of the unique index, e.g. `username` or `authData.weixin.uid`. */
  field: string;
  value: string;
}

/** Per-class rules the store needs: which values of an object are unique. */
export interface ClassDescriptor {
  uniqueKeys(object: Readonly<StoredObject>): UniqueKey[];
}

export type ClassDescriptors = Readonly<Record<string, ClassDescriptor>>;

/** One change to one field; `path` is the field name, then nested keys. */
export type FieldOp =
  | { op: 'set'; path: string[]; value: unknown }
  | { op: 'delete'; path: string[] }
  | { op: 'increment'; path: string[]; amount: number }
  | { op: 'add' | 'addUnique' | 'remove'; path: string[]; objects: unknown[] }
  /**
   * Changes nothing, but fails the whole update with `PreconditionFailedError`
   * unless the field holds `value` (absent when `value` is undefined): a
   * compare-and-set checked in the same atomic step as the other ops.
   */
  | { op: 'expect'; path: string[]; value: unknown };

export interface UpdateOptions {
  /** New `updatedAt`; always set by the caller so every adapter agrees on it. */
  updatedAt: string;
}

export interface FindResult {
  results: StoredObject[];
  count?: number;
}

/**
 * Objects of schema-free classes, per app, with unique indexes.
 *
 * Every write is atomic: an insert or update that would take a unique value
 * held by another object throws `DuplicateValueError` and changes nothing.
 */
export interface ObjectStore {
  insert(appId: string, className: string, object: StoredObject): Promise<void>;
  get(appId: string, className: string, objectId: string): Promise<StoredObject | null>;
  /** Looks an object up by one of its unique keys. */
  findByUnique(appId: string, className: string, key: UniqueKey): Promise<StoredObject | null>;
  /** Applies `ops` in order; answers the updated object, or null when it does not exist. */
  update(appId: string, className: string, objectId: string, ops: FieldOp[], options: UpdateOptions): Promise<StoredObject | null>;
  /** Answers whether an object was deleted. */
  delete(appId: string, className: string, objectId: string): Promise<boolean>;
  find(appId: string, className: string, query: Query): Promise<FindResult>;
}

/** Secret, single-use, expiring tokens (email verification, password reset). */
export interface TokenStore {
  putToken(appId: string, kind: string, tokenHash: string, payload: Record<string, string>, expiresAt: number): Promise<void>;
  /** Answers the payload of a live token without using it up, or null. */
  peekToken(appId: string, kind: string, tokenHash: string, now: number): Promise<Record<string, string> | null>;
  /** Removes the token and answers its payload, or null when it is unknown or expired. Exactly one caller wins. */
  takeToken(appId: string, kind: string, tokenHash: string, now: number): Promise<Record<string, string> | null>;
}

export interface Store extends ObjectStore, TokenStore {
  /** Devices, by shard and by channel and device type; shares the store's connection. */
  readonly installations: InstallationStore;
  /** Push records and their delivery results. */
  readonly pushes: PushStore;
  /** Pushes waiting for their push_time. */
  readonly scheduled: ScheduledPushStore;
  /** Each targeted device's final outcome, per push slice, found by push and by installation. */
  readonly deliveries: DeliveryLogStore;
  /** Answers when the backing service is reachable. */
  ping(): Promise<void>;
  close(): Promise<void>;
}
