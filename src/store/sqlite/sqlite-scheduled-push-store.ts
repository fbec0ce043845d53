import type { StatementSync } from 'node:sqlite';
import { DuplicateValueError } from '../../core/errors.ts';
import { scheduledListCap, type ScheduledPush, type ScheduledPushStore } from '../../core/ports/scheduled-push-store.ts';
import type { SqliteSession } from './sqlite-session.ts';

/**
 * Scheduled pushes in `scheduled_pushes`, keyed by (app, id) and indexed by
 * due time (across apps, for the scheduler) and by (app, due time) for
 * listing. `remove` is one DELETE … RETURNING, so one caller gets the entry.
 */
export class SqliteScheduledPushStore implements ScheduledPushStore {
  readonly #session: SqliteSession;
  readonly #sql: ReturnType<typeof prepareStatements>;

  constructor(session: SqliteSession) {
    this.#session = session;
    this.#sql = prepareStatements(session);
  }

  add(entry: ScheduledPush): Promise<void> {
    return this.#session.run(() => {
      const inserted = this.#sql.insert.run(entry.appId, entry.id, entry.dueAt, entry.pushId, entry.createdAt, JSON.stringify(entry.message));
      if (inserted.changes === 0) throw new DuplicateValueError('id');
    });
  }

  listForApp(appId: string): Promise<ScheduledPush[]> {
    return this.#session.run(() => this.#sql.listForApp.all(appId, scheduledListCap).map(toEntry));
  }

  get(appId: string, id: number): Promise<ScheduledPush | null> {
    return this.#session.run(() => {
      const row = this.#sql.select.get(appId, id);
      return row === undefined ? null : toEntry(row);
    });
  }

  remove(appId: string, id: number): Promise<ScheduledPush | null> {
    return this.#session.run(() => {
      const row = this.#sql.remove.get(appId, id);
      return row === undefined ? null : toEntry(row);
    });
  }

  due(now: number, limit: number): Promise<ScheduledPush[]> {
    return this.#session.run(() => this.#sql.due.all(now, limit).map(toEntry));
  }
}

const columns = 'app_id, id, due_at, push_id, created_at, message';

function toEntry(row: Record<string, unknown>): ScheduledPush {
  return {
    id: Number(row.id),
    appId: String(row.app_id),
    pushId: String(row.push_id),
    dueAt: Number(row.due_at),
    createdAt: String(row.created_at),
    message: JSON.parse(String(row.message)) as Record<string, unknown>,
  };
}

function prepareStatements(session: SqliteSession) {
  const prepare = (sql: string): StatementSync => session.db.prepare(sql);
  return {
    insert: prepare(`INSERT INTO scheduled_pushes (${columns}) VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (app_id, id) DO NOTHING`),
    select: prepare(`SELECT ${columns} FROM scheduled_pushes WHERE app_id = ? AND id = ?`),
    listForApp: prepare(`SELECT ${columns} FROM scheduled_pushes WHERE app_id = ? ORDER BY due_at, id LIMIT ?`),
    remove: prepare(`DELETE FROM scheduled_pushes WHERE app_id = ? AND id = ? RETURNING ${columns}`),
    due: prepare(`SELECT ${columns} FROM scheduled_pushes WHERE due_at <= ? ORDER BY due_at, app_id, id LIMIT ?`),
  };
}
