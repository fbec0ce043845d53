import type { DatabaseSync } from 'node:sqlite';

/**
 * Migrations in order; the database's `PRAGMA user_version` is the number
 * already applied. Append new steps, never edit old ones.
 */
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
];

/** The schema version this code writes. */
export const sqliteSchemaVersion = migrations.length;

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
