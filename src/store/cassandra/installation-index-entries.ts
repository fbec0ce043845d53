import type { IndexChoice } from '../installation-shards.ts';
import { parseIndexKey } from '../installation-shards.ts';
import type { CqlSession } from './cassandra-client.ts';

/** Index keys (`c:<channel>`, `t:<deviceType>`) a revision put an installation into and took it out of. */
export interface IndexChanges {
  added: readonly string[];
  retired: readonly string[];
}

/**
 * The members of each channel and device type, one partition per (app,
 * channel or type, shard) of `installations_by_channel` and
 * `installations_by_type`, clustered by objectId. An entry is the key alone:
 * a page of an index is read together with the installations it names
 * (`InstallationRows.readMany`), so an entry never changes when its
 * installation does, and a save writes only the entries of the indexes it
 * joins or leaves. The `doc` column, where versions before held a copy of
 * the whole installation, is neither written nor read.
 *
 * Entries are written without lightweight transactions but with the write
 * timestamp of the revision that made the change, so whatever order they
 * arrive in, the newest revision's entry (or its removal) wins.
 */
export class InstallationIndexEntries {
  readonly #session: CqlSession;
  readonly #shardOf: (objectId: string) => number;
  readonly #cql: ReturnType<typeof statements>;

  constructor(session: CqlSession, keyspace: string, shardOf: (objectId: string) => number) {
    this.#session = session;
    this.#shardOf = shardOf;
    this.#cql = statements(keyspace);
  }

  /** Adds the installation to the `added` indexes and removes it from the `retired` ones, all at `timestamp` (µs). */
  async apply(appId: string, objectId: string, changes: IndexChanges, timestamp: number): Promise<void> {
    const shard = this.#shardOf(objectId);
    await Promise.all([
      ...changes.added.map((key) => {
        const index = parseIndexKey(key);
        return this.#session.execute(this.#cql[index.kind].insert, [appId, indexValue(index), shard, objectId, timestamp]);
      }),
      this.remove(appId, objectId, changes.retired, timestamp),
    ]);
  }

  /** Removes the installation from the indexes `keys` with a tombstone at `timestamp` (µs). */
  async remove(appId: string, objectId: string, keys: readonly string[], timestamp: number): Promise<void> {
    const shard = this.#shardOf(objectId);
    await Promise.all(
      keys.map((key) => {
        const index = parseIndexKey(key);
        return this.#session.execute(this.#cql[index.kind].delete, [timestamp, appId, indexValue(index), shard, objectId]);
      }),
    );
  }

  /** At most `limit` objectIds of one shard of one index after `after`, in order. */
  async page(appId: string, index: IndexChoice, shard: number, after: string, limit: number): Promise<string[]> {
    const result = await this.#session.execute(this.#cql[index.kind].page, [appId, indexValue(index), shard, after, limit], { fetchSize: limit });
    return result.rows.map((row) => String(row.get('object_id')));
  }
}

function indexValue(index: IndexChoice): string {
  return index.kind === 'channel' ? index.channel : index.deviceType;
}

function statements(keyspace: string) {
  const forTable = (table: string, column: string) => ({
    insert: `INSERT INTO ${keyspace}.${table} (app_id, ${column}, shard, object_id) VALUES (?, ?, ?, ?) USING TIMESTAMP ?`,
    delete: `DELETE FROM ${keyspace}.${table} USING TIMESTAMP ? WHERE app_id = ? AND ${column} = ? AND shard = ? AND object_id = ?`,
    page: `SELECT object_id FROM ${keyspace}.${table} WHERE app_id = ? AND ${column} = ? AND shard = ? AND object_id > ? LIMIT ?`,
  });
  return { channel: forTable('installations_by_channel', 'channel'), deviceType: forTable('installations_by_type', 'device_type') };
}
