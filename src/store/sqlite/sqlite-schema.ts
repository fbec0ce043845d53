import { DatabaseSync } from 'node:sqlite';
import { translateSqliteError } from './sqlite-errors.ts';

/**
 * Migrations in order; the database's `PRAGMA user_version` is the number
 * already applied. Append new steps, never edit old ones.
 */
// Installations by registrationId (a push to a maker's tokens finds their
// installations): index rows keyed r:<registrationId>, which every write
// keeps from now on, added by this step for the installations already stored.
const registrationIdRows = `INSERT OR IGNORE INTO installation_index (app_id, index_key, shard, object_id)
     SELECT app_id, 'r:' || json_extract(doc, '$.registrationId'), shard, object_id FROM installations
     WHERE json_type(doc, '$.registrationId') = 'text' AND json_extract(doc, '$.registrationId') <> '';`;

const migrations: readonly string[] = [
  `CREATE TABLE objects (
     app_id TEXT NOT NULL,
     class TEXT NOT NULL,
     object_id TEXT NOT NULL,
     doc TEXT NOT NULL,
     created_at TEXT NOT NULL,
     PRIMARY KEY (app_id, class, object_id)
   );
   CREATE TABLE unique_keys (
     app_id TEXT NOT NULL,
     class TEXT NOT NULL,
     field TEXT NOT NULL,
     value TEXT NOT NULL,
     object_id TEXT NOT NULL,
     PRIMARY KEY (app_id, class, field, value)
   ) WITHOUT ROWID;
   CREATE INDEX unique_keys_by_object ON unique_keys (app_id, class, object_id);
   CREATE TABLE tokens (
     app_id TEXT NOT NULL,
     kind TEXT NOT NULL,
     token_hash TEXT NOT NULL,
     payload TEXT NOT NULL,
     expires_at INTEGER NOT NULL,
     PRIMARY KEY (app_id, kind, token_hash)
   ) WITHOUT ROWID;`,
  // Lets putToken purge an app's expired tokens without scanning its live ones.
  'CREATE INDEX tokens_by_expiry ON tokens (app_id, expires_at);',
  // Push data: installations by (app, shard) with their device keys unique per
  // app, index rows naming the installations of a channel or device type per
  // shard (read joined with installations, so never stale), push records with
  // one result row per reported slice, and scheduled pushes by due time.
  // IF NOT EXISTS: a file whose version was set back re-runs the step.
  `CREATE TABLE IF NOT EXISTS store_settings (
     name TEXT PRIMARY KEY,
     value TEXT NOT NULL
   ) WITHOUT ROWID;
   CREATE TABLE IF NOT EXISTS installations (
     app_id TEXT NOT NULL,
     shard INTEGER NOT NULL,
     object_id TEXT NOT NULL,
     doc TEXT NOT NULL,
     device_token TEXT,
     installation_id TEXT,
     PRIMARY KEY (app_id, shard, object_id)
   ) WITHOUT ROWID;
   CREATE UNIQUE INDEX IF NOT EXISTS installations_by_device_token ON installations (app_id, device_token) WHERE device_token IS NOT NULL;
   CREATE UNIQUE INDEX IF NOT EXISTS installations_by_installation_id ON installations (app_id, installation_id) WHERE installation_id IS NOT NULL;
   CREATE TABLE IF NOT EXISTS installation_index (
     app_id TEXT NOT NULL,
     index_key TEXT NOT NULL,
     shard INTEGER NOT NULL,
     object_id TEXT NOT NULL,
     PRIMARY KEY (app_id, index_key, shard, object_id)
   ) WITHOUT ROWID;
   CREATE TABLE IF NOT EXISTS push_records (
     app_id TEXT NOT NULL,
     object_id TEXT NOT NULL,
     notification_id TEXT,
     created_ms INTEGER NOT NULL,
     doc TEXT NOT NULL,
     PRIMARY KEY (app_id, object_id)
   );
   CREATE INDEX IF NOT EXISTS push_records_by_notification ON push_records (app_id, notification_id, created_ms);
   CREATE INDEX IF NOT EXISTS push_records_by_created ON push_records (app_id, created_ms, object_id);
   CREATE INDEX IF NOT EXISTS push_records_by_age ON push_records (created_ms);
   CREATE TABLE IF NOT EXISTS push_results (
     app_id TEXT NOT NULL,
     push_id TEXT NOT NULL,
     slice_key TEXT NOT NULL,
     counts TEXT NOT NULL,
     final INTEGER NOT NULL,
     written_ms INTEGER NOT NULL,
     PRIMARY KEY (app_id, push_id, slice_key)
   ) WITHOUT ROWID;
   CREATE INDEX IF NOT EXISTS push_results_by_age ON push_results (written_ms);
   CREATE TABLE IF NOT EXISTS scheduled_pushes (
     app_id TEXT NOT NULL,
     id INTEGER NOT NULL,
     due_at INTEGER NOT NULL,
     push_id TEXT NOT NULL,
     created_at TEXT NOT NULL,
     message TEXT NOT NULL,
     PRIMARY KEY (app_id, id)
   );
   CREATE INDEX IF NOT EXISTS scheduled_pushes_by_due ON scheduled_pushes (due_at, app_id, id);
   CREATE INDEX IF NOT EXISTS scheduled_pushes_by_app_due ON scheduled_pushes (app_id, due_at, id);`,
  registrationIdRows,
  // The delivery log (docs/delivery-log.md): one row per slice of a push with
  // its entries by outcome (large rows, so a rowid table), and per
  // installation bucket one range row per slice pointing at it. Both go when
  // their expires_ms has passed (the scheduler's sweep).
  `CREATE TABLE IF NOT EXISTS delivery_slices (
     app_id TEXT NOT NULL,
     push_id TEXT NOT NULL,
     slice_key TEXT NOT NULL,
     written_ms INTEGER NOT NULL,
     expires_ms INTEGER NOT NULL,
     failed INTEGER NOT NULL,
     invalid_tokens INTEGER NOT NULL,
     delivered INTEGER NOT NULL,
     failed_entries BLOB NOT NULL,
     invalid_token_entries BLOB NOT NULL,
     delivered_entries BLOB NOT NULL,
     UNIQUE (app_id, push_id, slice_key)
   );
   CREATE INDEX IF NOT EXISTS delivery_slices_by_expiry ON delivery_slices (expires_ms);
   CREATE TABLE IF NOT EXISTS delivery_ranges (
     app_id TEXT NOT NULL,
     bucket INTEGER NOT NULL,
     written_ms INTEGER NOT NULL,
     push_id TEXT NOT NULL,
     slice_key TEXT NOT NULL,
     low TEXT NOT NULL,
     high TEXT NOT NULL,
     filter BLOB NOT NULL,
     expires_ms INTEGER NOT NULL,
     PRIMARY KEY (app_id, bucket, written_ms, push_id, slice_key)
   ) WITHOUT ROWID;
   CREATE INDEX IF NOT EXISTS delivery_ranges_by_expiry ON delivery_ranges (expires_ms);`,
];

/** The schema version this code writes. */
export const sqliteSchemaVersion = migrations.length;

/** The schema version before the step that indexes installations by registrationId. */
export const versionBeforeRegistrationIdRows = migrations.indexOf(registrationIdRows);

/**
 * Brings a freshly opened database to the current schema. Safe when several
 * connections open the same file at once: the check and the migration run
 * in one write transaction.
 */
export function migrateSqliteSchema(db: DatabaseSync): void {
  db.exec('BEGIN IMMEDIATE');
  try {
    const row = db.prepare('PRAGMA user_version').get();
    const version = typeof row?.user_version === 'number' ? row.user_version : 0;
    if (version > sqliteSchemaVersion) {
      throw new Error(`the SQLite database has schema version ${version}, newer than this Herald understands (${sqliteSchemaVersion})`);
    }
    for (const migration of migrations.slice(version)) db.exec(migration);
    // PRAGMA takes no bound parameters; the value is our own integer.
    if (version < sqliteSchemaVersion) db.exec(`PRAGMA user_version = ${sqliteSchemaVersion}`);
    db.exec('COMMIT');
  } catch (error) {
    if (db.isTransaction) db.exec('ROLLBACK');
    throw error;
  }
}

/** Opens the database file, brings it to the current schema and closes it (the `migrate` command). */
export function migrateSqliteFile(file: string): void {
  let db: DatabaseSync;
  try {
    // Waits for another connection's lock as long as the store does.
    db = new DatabaseSync(file, { timeout: 5000 });
  } catch (error) {
    throw translateSqliteError(error);
  }
  try {
    db.exec('PRAGMA journal_mode = WAL');
    migrateSqliteSchema(db);
  } catch (error) {
    throw translateSqliteError(error);
  } finally {
    db.close();
  }
}
