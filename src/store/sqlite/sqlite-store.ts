import { DatabaseSync, type StatementSync } from 'node:sqlite';
import { systemClock, type Clock } from '../../core/clock.ts';
import { DuplicateValueError } from '../../core/errors.ts';
import type { InstallationStore } from '../../core/ports/installation-store.ts';
import type {
  ClassDescriptors,
  FieldOp,
  FindResult,
  Store,
  StoredObject,
  UniqueKey,
  UpdateOptions,
} from '../../core/ports/object-store.ts';
import type { PushStore } from '../../core/ports/push-store.ts';
import type { DeliveryLogStore } from '../../core/ports/delivery-log-store.ts';
import type { ScheduledPushStore } from '../../core/ports/scheduled-push-store.ts';
import { applyOps } from '../../query/apply-ops.ts';
import type { Query } from '../../query/query.ts';
import { runQuery } from '../../query/run-query.ts';
import { checkShardCount, defaultInstallationShards } from '../installation-shards.ts';
import { translateSqliteError } from './sqlite-errors.ts';
import { SqliteInstallationStore } from './sqlite-installation-store.ts';
import { SqlitePushStore } from './sqlite-push-store.ts';
import { SqliteDeliveryLogStore } from './sqlite-delivery-log-store.ts';
import { SqliteScheduledPushStore } from './sqlite-scheduled-push-store.ts';
import { migrateSqliteSchema } from './sqlite-schema.ts';
import { SqliteSession } from './sqlite-session.ts';
import type { SqliteStoreOptions } from './sqlite-store-options.ts';
import { ProcessLock } from './process-lock.ts';

const defaultBusyTimeoutMs = 5000;

/**
 * The embedded store: one SQLite file (WAL) holding objects as JSON, a
 * unique-key table maintained in the same transaction as every write, and
 * single-use tokens, an app's expired ones purged whenever it puts another;
 * and the push data (installations by shard, push records, scheduled pushes)
 * on the same connection.
 * Several instances, in one process or several, may share a file; writes
 * take the lock with BEGIN IMMEDIATE and wait up to the busy timeout, then
 * fail with 503.
 */
export class SqliteStore implements Store {
  readonly installations: InstallationStore;
  readonly pushes: PushStore;
  readonly scheduled: ScheduledPushStore;
  readonly deliveries: DeliveryLogStore;
  readonly #db: DatabaseSync;
  readonly #session: SqliteSession;
  readonly #classes: ClassDescriptors;
  readonly #clock: Clock;
  readonly #sql: ReturnType<typeof prepareStatements>;
  readonly #lock: ProcessLock | undefined;

  constructor(options: SqliteStoreOptions) {
    this.#classes = options.classes;
    this.#lock = options.processLockFile === undefined ? undefined : ProcessLock.acquire(options.processLockFile);
    this.#clock = options.clock ?? systemClock;
    const shardCount = checkShardCount(options.installationShards ?? defaultInstallationShards);
    try {
      this.#db = new DatabaseSync(options.file, { timeout: options.busyTimeoutMs ?? defaultBusyTimeoutMs });
    } catch (error) {
      this.#lock?.release();
      throw translateSqliteError(error);
    }
    this.#session = new SqliteSession(this.#db);
    try {
      this.#db.exec('PRAGMA journal_mode = WAL');
      this.#db.exec(options.synchronous === 'full' ? 'PRAGMA synchronous = FULL' : 'PRAGMA synchronous = NORMAL');
      migrateSqliteSchema(this.#db);
      this.#sql = prepareStatements(this.#db);
      this.installations = new SqliteInstallationStore(this.#session, shardCount);
      this.pushes = new SqlitePushStore(this.#session, this.#clock);
      this.scheduled = new SqliteScheduledPushStore(this.#session);
      this.deliveries = new SqliteDeliveryLogStore(this.#session);
    } catch (error) {
      this.#db.close();
      this.#lock?.release();
      throw translateSqliteError(error);
    }
  }

  /** The `PRAGMA synchronous` the connection runs with, read back from SQLite. */
  get synchronous(): 'normal' | 'full' | 'other' {
    const level = this.#db.prepare('PRAGMA synchronous').get()?.synchronous;
    return level === 1 ? 'normal' : level === 2 ? 'full' : 'other';
  }

  insert(appId: string, className: string, object: StoredObject): Promise<void> {
    return this.#run(() =>
      this.#transaction(() => {
        const inserted = this.#sql.insertObject.run(appId, className, object.objectId, JSON.stringify(object), object.createdAt);
        if (inserted.changes === 0) throw new DuplicateValueError('objectId');
        for (const key of this.#uniqueKeys(className, object)) this.#claim(appId, className, object.objectId, key);
      }),
    );
  }

  get(appId: string, className: string, objectId: string): Promise<StoredObject | null> {
    return this.#run(() => this.#read(appId, className, objectId));
  }

  findByUnique(appId: string, className: string, key: UniqueKey): Promise<StoredObject | null> {
    return this.#run(() => {
      const row = this.#sql.selectByUnique.get(appId, className, key.field, key.value);
      return row === undefined ? null : parseDoc(row.doc);
    });
  }

  update(appId: string, className: string, objectId: string, ops: FieldOp[], options: UpdateOptions): Promise<StoredObject | null> {
    return this.#run(() =>
      this.#transaction(() => {
        const current = this.#read(appId, className, objectId);
        if (current === null) return null;
        const next: StoredObject = {
          ...applyOps(current, ops),
          objectId: current.objectId,
          createdAt: current.createdAt,
          updatedAt: options.updatedAt,
        };
        const wanted = new Map(this.#uniqueKeys(className, next).map((key) => [keyId(key), key]));
        const held = this.#sql.selectKeysOf.all(appId, className, objectId).map((row) => ({ field: String(row.field), value: String(row.value) }));
        const heldIds = new Set(held.map(keyId));
        // Free values first, so that an object may move one of its own values between fields.
        for (const key of held) if (!wanted.has(keyId(key))) this.#sql.deleteKey.run(appId, className, key.field, key.value);
        for (const [id, key] of wanted) if (!heldIds.has(id)) this.#claim(appId, className, objectId, key);
        this.#sql.updateObject.run(JSON.stringify(next), appId, className, objectId);
        return next;
      }),
    );
  }

  delete(appId: string, className: string, objectId: string): Promise<boolean> {
    return this.#run(() =>
      this.#transaction(() => {
        this.#sql.deleteKeysOf.run(appId, className, objectId);
        return Number(this.#sql.deleteObject.run(appId, className, objectId).changes) > 0;
      }),
    );
  }

  async find(appId: string, className: string, query: Query): Promise<FindResult> {
    this.#session.assertOpen();
    try {
      // runQuery drains a synchronous source before its first await, so the
      // cursor never stays open while other work uses this connection.
      return await runQuery(this.#scan(appId, className), query);
    } catch (error) {
      throw translateSqliteError(error);
    }
  }

  putToken(appId: string, kind: string, tokenHash: string, payload: Record<string, string>, expiresAt: number): Promise<void> {
    return this.#run(() =>
      this.#transaction(() => {
        // Tokens that are never taken would otherwise stay forever; an app that
        // issues tokens keeps its own table clean.
        this.#sql.purgeExpiredTokens.run(appId, this.#clock.now());
        this.#sql.upsertToken.run(appId, kind, tokenHash, JSON.stringify(payload), expiresAt);
      }),
    );
  }

  peekToken(appId: string, kind: string, tokenHash: string, now: number): Promise<Record<string, string> | null> {
    return this.#run(() => livePayload(this.#sql.selectToken.get(appId, kind, tokenHash), now));
  }

  takeToken(appId: string, kind: string, tokenHash: string, now: number): Promise<Record<string, string> | null> {
    // One DELETE … RETURNING statement: exactly one connection gets the row.
    return this.#run(() => livePayload(this.#sql.takeToken.get(appId, kind, tokenHash), now));
  }

  ping(): Promise<void> {
    return this.#run(() => {
      this.#sql.ping.get();
    });
  }

  /** Closes the connection; later calls fail with 503. Idempotent. */
  close(): Promise<void> {
    this.#session.close();
    this.#lock?.release();
    return Promise.resolve();
  }

  #read(appId: string, className: string, objectId: string): StoredObject | null {
    const row = this.#sql.selectObject.get(appId, className, objectId);
    return row === undefined ? null : parseDoc(row.doc);
  }

  *#scan(appId: string, className: string): Generator<StoredObject> {
    for (const row of this.#sql.scanClass.iterate(appId, className)) yield parseDoc(row.doc);
  }

  #claim(appId: string, className: string, objectId: string, key: UniqueKey): void {
    const claimed = this.#sql.insertKey.run(appId, className, key.field, key.value, objectId);
    if (claimed.changes === 0) throw new DuplicateValueError(key.field);
  }

  #uniqueKeys(className: string, object: StoredObject): UniqueKey[] {
    const keys = this.#classes[className]?.uniqueKeys(object) ?? [];
    return [...new Map(keys.map((key) => [keyId(key), key])).values()];
  }

  #transaction<T>(work: () => T): T {
    return this.#session.transaction(work);
  }

  #run<T>(work: () => T): Promise<T> {
    return this.#session.run(work);
  }
}

function keyId(key: UniqueKey): string {
  return `${key.field}\u0000${key.value}`;
}

function parseDoc(doc: unknown): StoredObject {
  return JSON.parse(String(doc)) as StoredObject;
}

/** A token row's payload, or null when there is none or it expired at or before `now`. */
function livePayload(row: Record<string, unknown> | undefined, now: number): Record<string, string> | null {
  if (row === undefined || Number(row.expires_at) <= now) return null;
  return JSON.parse(String(row.payload)) as Record<string, string>;
}

function prepareStatements(db: DatabaseSync) {
  const prepare = (sql: string): StatementSync => db.prepare(sql);
  return {
    insertObject: prepare(
      `INSERT INTO objects (app_id, class, object_id, doc, created_at) VALUES (?, ?, ?, ?, ?)
       ON CONFLICT (app_id, class, object_id) DO NOTHING`,
    ),
    selectObject: prepare('SELECT doc FROM objects WHERE app_id = ? AND class = ? AND object_id = ?'),
    updateObject: prepare('UPDATE objects SET doc = ? WHERE app_id = ? AND class = ? AND object_id = ?'),
    deleteObject: prepare('DELETE FROM objects WHERE app_id = ? AND class = ? AND object_id = ?'),
    scanClass: prepare('SELECT doc FROM objects WHERE app_id = ? AND class = ?'),
    insertKey: prepare(
      `INSERT INTO unique_keys (app_id, class, field, value, object_id) VALUES (?, ?, ?, ?, ?)
       ON CONFLICT (app_id, class, field, value) DO NOTHING`,
    ),
    deleteKey: prepare('DELETE FROM unique_keys WHERE app_id = ? AND class = ? AND field = ? AND value = ?'),
    selectKeysOf: prepare('SELECT field, value FROM unique_keys WHERE app_id = ? AND class = ? AND object_id = ?'),
    deleteKeysOf: prepare('DELETE FROM unique_keys WHERE app_id = ? AND class = ? AND object_id = ?'),
    selectByUnique: prepare(
      `SELECT o.doc FROM unique_keys u
       JOIN objects o ON o.app_id = u.app_id AND o.class = u.class AND o.object_id = u.object_id
       WHERE u.app_id = ? AND u.class = ? AND u.field = ? AND u.value = ?`,
    ),
    upsertToken: prepare(
      `INSERT INTO tokens (app_id, kind, token_hash, payload, expires_at) VALUES (?, ?, ?, ?, ?)
       ON CONFLICT (app_id, kind, token_hash) DO UPDATE SET payload = excluded.payload, expires_at = excluded.expires_at`,
    ),
    selectToken: prepare('SELECT payload, expires_at FROM tokens WHERE app_id = ? AND kind = ? AND token_hash = ?'),
    purgeExpiredTokens: prepare('DELETE FROM tokens WHERE app_id = ? AND expires_at <= ?'),
    takeToken: prepare('DELETE FROM tokens WHERE app_id = ? AND kind = ? AND token_hash = ? RETURNING payload, expires_at'),
    ping: prepare('SELECT 1'),
  };
}
