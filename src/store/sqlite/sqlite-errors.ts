import { ServiceUnavailableError } from '../../core/errors.ts';

const sqliteBusy = 5;
const sqliteLocked = 6;

/**
 * Turns SQLite's "database is locked/busy" into ServiceUnavailableError (503,
 * retryable); other errors pass through unchanged.
 */
export function translateSqliteError(error: unknown): Error {
  if (isSqliteError(error)) {
    // Extended result codes keep the primary code in the low byte.
    const primary = error.errcode & 0xff;
    if (primary === sqliteBusy || primary === sqliteLocked) return new ServiceUnavailableError('SQLite store', error);
  }
  return error instanceof Error ? error : new Error(String(error));
}

function isSqliteError(error: unknown): error is Error & { errcode: number } {
  return error instanceof Error && 'errcode' in error && typeof error.errcode === 'number';
}
