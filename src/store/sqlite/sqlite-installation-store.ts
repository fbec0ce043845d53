import type { StatementSync } from 'node:sqlite';
import { DuplicateValueError } from '../../core/errors.ts';
import { maxRegistrationHolders, type DeviceKey, type InstallationPage, type InstallationStore, type ShardRange, type ShardScan, type StampPage } from '../../core/ports/installation-store.ts';
import type { FieldOp, StoredObject, UpdateOptions } from '../../core/ports/object-store.ts';
import { applyOps } from '../../query/apply-ops.ts';
import {
  checkShardScan,
  deviceKeys,
  indexKey,
  installationIndexKeys as indexKeys,
  installationShard,
  pageOf,
  shardCountMismatch,
  stamp,
} from '../installation-shards.ts';
import type { SqliteSession } from './sqlite-session.ts';

/** Rows per transaction of `insertMany`. */
const insertBatch = 500;

/**
 * Installations in `installations`, clustered by (app, shard, objectId), with
 * `installation_index` rows naming the members of each channel and device
 * type per shard, and the holders of each registrationId. Every write changes the row, its index rows and its device
 * keys in one transaction, so an index read joined with the rows is never
 * stale. A shard page is one indexed range read.
 */
export class SqliteInstallationStore implements InstallationStore {
  readonly shardCount: number;
  readonly #session: SqliteSession;
  readonly #sql: ReturnType<typeof prepareStatements>;

  /** Records `shardCount` in a new database; refuses a database created with another count. */
  constructor(session: SqliteSession, shardCount: number) {
    this.#session = session;
    this.shardCount = shardCount;
    this.#sql = prepareStatements(session);
    session.transaction(() => {
      this.#sql.recordShards.run(String(shardCount));
      const stored = Number(this.#sql.selectShards.get()?.value);
      if (stored !== shardCount) throw shardCountMismatch(stored, shardCount);
    });
  }

  shardOf(objectId: string): number {
    return installationShard(objectId, this.shardCount);
  }

  insert(appId: string, installation: StoredObject): Promise<void> {
    return this.#session.run(() => this.#session.transaction(() => this.#insert(appId, installation)));
  }

  insertMany(appId: string, installations: StoredObject[]): Promise<void> {
    return this.#session.run(() => {
      for (let start = 0; start < installations.length; start += insertBatch) {
        this.#session.transaction(() => {
          for (const installation of installations.slice(start, start + insertBatch)) this.#insert(appId, installation);
        });
      }
    });
  }

  get(appId: string, objectId: string): Promise<StoredObject | null> {
    return this.#session.run(() => this.#read(appId, objectId));
  }

  findByDevice(appId: string, key: DeviceKey): Promise<StoredObject | null> {
    return this.#session.run(() => {
      const row = this.#byDevice(key.field).get(appId, key.value);
      return row === undefined ? null : parseDoc(row.doc);
    });
  }

  findByRegistrationId(appId: string, registrationId: string): Promise<StoredObject[]> {
    return this.#session.run(() => {
      if (registrationId === '') return [];
      const rows = this.#sql.selectByRegistration.all(appId, indexKey({ kind: 'registrationId', registrationId }), maxRegistrationHolders);
      return rows.map((row) => parseDoc(row.doc));
    });
  }

  update(appId: string, objectId: string, ops: FieldOp[], options: UpdateOptions): Promise<StoredObject | null> {
    return this.#session.run(() =>
      this.#session.transaction(() => {
        const current = this.#read(appId, objectId);
        if (current === null) return null;
        const next: StoredObject = { ...applyOps(current, ops), objectId, createdAt: current.createdAt, updatedAt: options.updatedAt };
        this.#checkDeviceKeys(appId, next);
        const shard = this.shardOf(objectId);
        this.#sql.updateRow.run(JSON.stringify(next), ...deviceColumns(next), appId, shard, objectId);
        const before = new Set(indexKeys(current));
        const after = new Set(indexKeys(next));
        for (const key of before) if (!after.has(key)) this.#sql.deleteIndex.run(appId, key, shard, objectId);
        for (const key of after) if (!before.has(key)) this.#sql.insertIndex.run(appId, key, shard, objectId);
        return next;
      }),
    );
  }

  delete(appId: string, objectId: string): Promise<boolean> {
    return this.#session.run(() => this.#session.transaction(() => this.#delete(appId, objectId, null)));
  }

  deleteIfUnchanged(appId: string, objectId: string, updatedAt: string): Promise<boolean> {
    return this.#session.run(() => this.#session.transaction(() => this.#delete(appId, objectId, updatedAt)));
  }

  scanShard(appId: string, scan: ShardScan): Promise<InstallationPage> {
    return this.#session.run(() => {
      checkShardScan(scan.shard, scan.limit, this.shardCount);
      const after = scan.after ?? '';
      const rows = scan.index.kind === 'all'
        ? this.#sql.scanAll.all(appId, scan.shard, after, scan.limit + 1)
        : this.#sql.scanIndex.all(appId, indexKey(scan.index), scan.shard, after, scan.limit + 1);
      const { items, next } = pageOf(rows, scan.limit, (row) => parseDoc(row.doc));
      return { installations: items, next };
    });
  }

  scanShardStamps(appId: string, range: ShardRange): Promise<StampPage> {
    return this.#session.run(() => {
      checkShardScan(range.shard, range.limit, this.shardCount);
      // SQLite takes the two values out of the stored JSON: no document reaches JavaScript.
      const rows = this.#sql.scanStamps.all(appId, range.shard, range.after ?? '', range.limit + 1);
      const { items, next } = pageOf(rows, range.limit, (row) => stamp(String(row.object_id), row.updated_at));
      return { stamps: items, next };
    });
  }

  #insert(appId: string, installation: StoredObject): void {
    this.#checkDeviceKeys(appId, installation);
    const shard = this.shardOf(installation.objectId);
    const inserted = this.#sql.insertRow.run(appId, shard, installation.objectId, JSON.stringify(installation), ...deviceColumns(installation));
    if (inserted.changes === 0) throw new DuplicateValueError('objectId');
    for (const key of indexKeys(installation)) this.#sql.insertIndex.run(appId, key, shard, installation.objectId);
  }

  /** Deletes the row and its index rows; with `updatedAt`, only while the stored one is still that. */
  #delete(appId: string, objectId: string, updatedAt: string | null): boolean {
    const current = this.#read(appId, objectId);
    if (current === null || (updatedAt !== null && current.updatedAt !== updatedAt)) return false;
    const shard = this.shardOf(objectId);
    for (const key of indexKeys(current)) this.#sql.deleteIndex.run(appId, key, shard, objectId);
    this.#sql.deleteRow.run(appId, shard, objectId);
    return true;
  }

  /** Throws DuplicateValueError when another installation of the app holds one of this one's device keys. */
  #checkDeviceKeys(appId: string, installation: StoredObject): void {
    for (const key of deviceKeys(installation)) {
      const holder = this.#byDevice(key.field).get(appId, key.value);
      if (holder !== undefined && holder.object_id !== installation.objectId) throw new DuplicateValueError(key.field);
    }
  }

  #read(appId: string, objectId: string): StoredObject | null {
    const row = this.#sql.selectRow.get(appId, this.shardOf(objectId), objectId);
    return row === undefined ? null : parseDoc(row.doc);
  }

  #byDevice(field: DeviceKey['field']): StatementSync {
    return field === 'deviceToken' ? this.#sql.selectByDeviceToken : this.#sql.selectByInstallationId;
  }
}

function deviceColumns(installation: StoredObject): [string | null, string | null] {
  const keys = deviceKeys(installation);
  return [keys.find((key) => key.field === 'deviceToken')?.value ?? null, keys.find((key) => key.field === 'installationId')?.value ?? null];
}

function parseDoc(doc: unknown): StoredObject {
  return JSON.parse(String(doc)) as StoredObject;
}

function prepareStatements(session: SqliteSession) {
  const prepare = (sql: string): StatementSync => session.db.prepare(sql);
  return {
    recordShards: prepare(`INSERT INTO store_settings (name, value) VALUES ('installationShards', ?) ON CONFLICT (name) DO NOTHING`),
    selectShards: prepare(`SELECT value FROM store_settings WHERE name = 'installationShards'`),
    insertRow: prepare(
      `INSERT INTO installations (app_id, shard, object_id, doc, device_token, installation_id) VALUES (?, ?, ?, ?, ?, ?)
       ON CONFLICT (app_id, shard, object_id) DO NOTHING`,
    ),
    selectRow: prepare('SELECT doc FROM installations WHERE app_id = ? AND shard = ? AND object_id = ?'),
    updateRow: prepare('UPDATE installations SET doc = ?, device_token = ?, installation_id = ? WHERE app_id = ? AND shard = ? AND object_id = ?'),
    deleteRow: prepare('DELETE FROM installations WHERE app_id = ? AND shard = ? AND object_id = ?'),
    selectByDeviceToken: prepare('SELECT object_id, doc FROM installations WHERE app_id = ? AND device_token = ?'),
    selectByInstallationId: prepare('SELECT object_id, doc FROM installations WHERE app_id = ? AND installation_id = ?'),
    insertIndex: prepare(
      `INSERT INTO installation_index (app_id, index_key, shard, object_id) VALUES (?, ?, ?, ?)
       ON CONFLICT (app_id, index_key, shard, object_id) DO NOTHING`,
    ),
    deleteIndex: prepare('DELETE FROM installation_index WHERE app_id = ? AND index_key = ? AND shard = ? AND object_id = ?'),
    scanAll: prepare(
      `SELECT doc FROM installations WHERE app_id = ? AND shard = ? AND object_id > ?
       ORDER BY object_id LIMIT ?`,
    ),
    scanStamps: prepare(
      `SELECT object_id, json_extract(doc, '$.updatedAt') AS updated_at FROM installations WHERE app_id = ? AND shard = ? AND object_id > ?
       ORDER BY object_id LIMIT ?`,
    ),
    // One range of the index's primary key, whatever the shards: (app_id, index_key) leads it.
    selectByRegistration: prepare(
      `SELECT i.doc FROM installation_index x
       JOIN installations i ON i.app_id = x.app_id AND i.shard = x.shard AND i.object_id = x.object_id
       WHERE x.app_id = ? AND x.index_key = ?
       ORDER BY x.object_id LIMIT ?`,
    ),
    scanIndex: prepare(
      `SELECT i.doc FROM installation_index x
       JOIN installations i ON i.app_id = x.app_id AND i.shard = x.shard AND i.object_id = x.object_id
       WHERE x.app_id = ? AND x.index_key = ? AND x.shard = ? AND x.object_id > ?
       ORDER BY x.object_id LIMIT ?`,
    ),
  };
}
