import type { StoredObject } from '../../core/ports/object-store.ts';
import { installationIndexKeys, parseIndexKey, type IndexChoice } from '../installation-shards.ts';
import type { CqlSession } from './cassandra-client.ts';

/**
 * The copies of installations in `installations_by_channel` and
 * `installations_by_type`, one partition per (app, channel or type, shard).
 * Copies are written without lightweight transactions but with the write
 * timestamp of the installation revision they belong to, so that whatever
 * order they arrive in, the newest revision's copy (or removal) wins.
 */
export class InstallationCopies {
  readonly #session: CqlSession;
  readonly #shardOf: (objectId: string) => number;
  readonly #cql: ReturnType<typeof statements>;

  constructor(session: CqlSession, keyspace: string, shardOf: (objectId: string) => number) {
    this.#session = session;
    this.#shardOf = shardOf;
    this.#cql = statements(keyspace);
  }

  /** Writes a copy of `installation` in each of its indexes and removes it from `retired` ones, all at `timestamp` (µs). */
  async write(appId: string, installation: StoredObject, timestamp: number, retired: readonly string[]): Promise<void> {
    const doc = JSON.stringify(installation);
    const shard = this.#shardOf(installation.objectId);
    await Promise.all([
      ...installationIndexKeys(installation).map((key) => {
        const index = parseIndexKey(key);
        return this.#session.execute(this.#cql[index.kind].insert, [appId, indexValue(index), shard, installation.objectId, doc, timestamp]);
      }),
      this.remove(appId, installation.objectId, retired, timestamp),
    ]);
  }

  /** Removes the copies of an installation from the indexes `keys` with a tombstone at `timestamp` (µs). */
  async remove(appId: string, objectId: string, keys: readonly string[], timestamp: number): Promise<void> {
    const shard = this.#shardOf(objectId);
    await Promise.all(
      keys.map((key) => {
        const index = parseIndexKey(key);
        return this.#session.execute(this.#cql[index.kind].delete, [timestamp, appId, indexValue(index), shard, objectId]);
      }),
    );
  }

  /** At most `limit` copies of one shard of one index after `after`, in objectId order. */
  async page(appId: string, index: IndexChoice, shard: number, after: string, limit: number): Promise<StoredObject[]> {
    const result = await this.#session.execute(this.#cql[index.kind].page, [appId, indexValue(index), shard, after, limit], { fetchSize: limit });
    return result.rows.map((row) => JSON.parse(String(row.get('doc'))) as StoredObject);
  }
}

function indexValue(index: IndexChoice): string {
  return index.kind === 'channel' ? index.channel : index.deviceType;
}

function statements(keyspace: string) {
  const forTable = (table: string, column: string) => ({
    insert: `INSERT INTO ${keyspace}.${table} (app_id, ${column}, shard, object_id, doc) VALUES (?, ?, ?, ?, ?) USING TIMESTAMP ?`,
    delete: `DELETE FROM ${keyspace}.${table} USING TIMESTAMP ? WHERE app_id = ? AND ${column} = ? AND shard = ? AND object_id = ?`,
    page: `SELECT doc FROM ${keyspace}.${table} WHERE app_id = ? AND ${column} = ? AND shard = ? AND object_id > ? LIMIT ?`,
  });
  return { channel: forTable('installations_by_channel', 'channel'), deviceType: forTable('installations_by_type', 'device_type') };
}
