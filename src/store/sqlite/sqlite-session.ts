import type { DatabaseSync } from 'node:sqlite';
import { ServiceUnavailableError } from '../../core/errors.ts';
import { translateSqliteError } from './sqlite-errors.ts';

/**
 * One open SQLite connection shared by the store's parts: runs work with
 * errors translated (busy → 503), wraps writes in BEGIN IMMEDIATE
 * transactions, and refuses work once the store is closed.
 */
export class SqliteSession {
  readonly db: DatabaseSync;
  #closed = false;

  constructor(db: DatabaseSync) {
    this.db = db;
  }

  get closed(): boolean {
    return this.#closed;
  }

  /** Closes the connection; later work fails with 503. Idempotent. */
  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    this.db.close();
  }

  /** Runs synchronous work and answers its result, or its error translated, as a promise. */
  run<T>(work: () => T): Promise<T> {
    try {
      this.assertOpen();
      return Promise.resolve(work());
    } catch (error) {
      return Promise.reject(translateSqliteError(error));
    }
  }

  /** Runs `work` in one write transaction, rolled back if it throws. */
  transaction<T>(work: () => T): T {
    this.db.exec('BEGIN IMMEDIATE');
    try {
      const result = work();
      this.db.exec('COMMIT');
      return result;
    } catch (error) {
      if (this.db.isTransaction) this.db.exec('ROLLBACK');
      throw error;
    }
  }

  assertOpen(): void {
    if (this.#closed) throw new ServiceUnavailableError('SQLite store (closed)');
  }
}
