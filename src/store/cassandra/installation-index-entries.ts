import type { IndexChoice, IndexEntry } from '../installation-shards.ts';
import { parseIndexKey } from '../installation-shards.ts';
import { type CqlSession, unloggedBatchPartitions } from './cassandra-client.ts';
import type { BatchedRow } from './partition-batcher.ts';

/** Index keys (`c:<channel>`, `t:<deviceType>`, `r:<registrationId>`) a revision put an installation into and took it out of. */
export interface IndexChanges {
  added: readonly string[];
  retired: readonly string[];
}

/** Entries of `installations_by_registration`, each its own partition, written by one unlogged batch at most. */
export const registrationsPerBatch = unloggedBatchPartitions;

/**
 * The members of each channel and device type, one partition per (app,
 * channel or type, shard) of `installations_by_channel` and
 * `installations_by_type`, clustered by objectId. An entry is the key alone:
 * a page of an index is read together with the installations it names
 * (`InstallationRows.readMany`), so an entry never changes when its
 * installation does, and a save writes only the entries of the indexes it
 * joins or leaves. The `doc` column, where versions before held a copy of
 * the whole installation, is neither written nor read. The holders of a
 * registrationId are entries of `installations_by_registration`, one
 * partition per (app, registrationId) across shards: that index is read by
 * its key, never paged by shard.
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
        if (index.kind === 'registrationId') return this.#session.execute(this.#cql.registration.insert, [appId, index.registrationId, objectId, timestamp]);
        return this.#session.execute(this.#cql[index.kind].insert, [appId, indexValue(index), shard, objectId, timestamp]);
      }),
      this.remove(appId, objectId, changes.retired, timestamp),
    ]);
  }

  /**
   * The writes adding the installation to the indexes `added` at `timestamp`
   * (µs), to batch with others: a channel's or device type's entry with the
   * others of its partition; a registrationId's, whose partition seldom holds
   * another, with up to `registrationsPerBatch` others of the app.
   */
  addRows(appId: string, objectId: string, added: readonly string[], timestamp: number): BatchedRow[] {
    const shard = this.#shardOf(objectId);
    return added.map((key) => {
      const index = parseIndexKey(key);
      if (index.kind === 'registrationId') {
        const statement = { query: this.#cql.registration.insert, params: [appId, index.registrationId, objectId, timestamp] };
        return { group: `r\u0000${appId}`, statement, maxRows: registrationsPerBatch };
      }
      const value = indexValue(index);
      return { group: `${index.kind}\u0000${appId}\u0000${value}\u0000${String(shard)}`, statement: { query: this.#cql[index.kind].insert, params: [appId, value, shard, objectId, timestamp] } };
    });
  }

  /** Removes the installation from the indexes `keys` with a tombstone at `timestamp` (µs). */
  async remove(appId: string, objectId: string, keys: readonly string[], timestamp: number): Promise<void> {
    const shard = this.#shardOf(objectId);
    await Promise.all(
      keys.map((key) => {
        const index: IndexEntry = parseIndexKey(key);
        if (index.kind === 'registrationId') return this.#session.execute(this.#cql.registration.delete, [timestamp, appId, index.registrationId, objectId]);
        return this.#session.execute(this.#cql[index.kind].delete, [timestamp, appId, indexValue(index), shard, objectId]);
      }),
    );
  }

  /** At most `limit` objectIds of one shard of one index after `after`, in order. */
  async page(appId: string, index: IndexChoice, shard: number, after: string, limit: number): Promise<string[]> {
    const result = await this.#session.execute(this.#cql[index.kind].page, [appId, indexValue(index), shard, after, limit], { fetchSize: limit });
    return result.rows.map((row) => String(row.get('object_id')));
  }

  /** At most `limit` objectIds with an entry under `registrationId`, in order: one partition. */
  async holders(appId: string, registrationId: string, limit: number): Promise<string[]> {
    const result = await this.#session.execute(this.#cql.registration.holders, [appId, registrationId, limit], { fetchSize: limit });
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
  const registration = `${keyspace}.installations_by_registration`;
  return {
    channel: forTable('installations_by_channel', 'channel'),
    deviceType: forTable('installations_by_type', 'device_type'),
    registration: {
      insert: `INSERT INTO ${registration} (app_id, registration_id, object_id) VALUES (?, ?, ?) USING TIMESTAMP ?`,
      delete: `DELETE FROM ${registration} USING TIMESTAMP ? WHERE app_id = ? AND registration_id = ? AND object_id = ?`,
      holders: `SELECT object_id FROM ${registration} WHERE app_id = ? AND registration_id = ? LIMIT ?`,
    },
  };
}
