import { duplicateToHeraldError } from '../accounts/duplicate-errors.ts';
import { userClassDescriptor } from '../accounts/user-class.ts';
import { userClass } from '../accounts/user-fields.ts';
import { DuplicateValueError } from '../core/errors.ts';
import type { BulkInsertOutcome, BulkInserts } from '../core/ports/bulk-inserts.ts';
import type { StoredObject } from '../core/ports/object-store.ts';
import { inFileOrder } from './batch-order.ts';
import { bulkBatchRows, type ClassWriter, type RowOutcome, type WriteOptions } from './class-writer.ts';
import type { ImportStore } from './import-store.ts';
import { readUserRow } from './user-rows.ts';

/**
 * Users go into the object store one insert each, which claims every unique
 * value (username, email, mobile number, session token, each third-party
 * identity and union marker) in the same atomic write as a sign-up's: a user
 * whose values clash with another's is refused whole and leaves nothing
 * behind. A user whose objectId is already stored is left as it is.
 *
 * Where the store has bulk inserts (Cassandra), users go in batches of
 * `bulkBatch` through them, with the same rules: the claims and documents
 * of many users share statements.
 */
export class UserWriter implements ClassWriter {
  readonly className = userClass;
  readonly batchSize: number;
  readonly #store: ImportStore;
  readonly #appId: string;
  readonly #newSessionToken: () => string;
  readonly #bulk: BulkInserts | null;

  constructor(store: ImportStore, appId: string, newSessionToken: () => string, bulk: BulkInserts | null = null, bulkBatch: number = bulkBatchRows._User) {
    this.#store = store;
    this.#appId = appId;
    this.#newSessionToken = newSessionToken;
    this.#bulk = bulk;
    this.batchSize = bulk === null ? 1 : bulkBatch;
  }

  prepare(row: Record<string, unknown>): StoredObject {
    return readUserRow(row, { newSessionToken: this.#newSessionToken });
  }

  keysOf(user: StoredObject): string[] {
    return [`objectId\u0000${user.objectId}`, ...userClassDescriptor.uniqueKeys(user).map((key) => `${key.field}\u0000${key.value}`)];
  }

  async write(users: readonly StoredObject[], options: WriteOptions): Promise<RowOutcome[]> {
    const bulk = this.#bulk;
    if (bulk !== null && !options.dryRun) {
      // Users sharing a value with an earlier one of the batch go after it, one at a time, so the first wins.
      return inFileOrder(users, (user) => this.keysOf(user), async (batch) => (await bulk.insertObjects(this.#appId, userClass, batch)).map(userOutcome));
    }
    const outcomes: RowOutcome[] = [];
    for (const user of users) outcomes.push(await this.#writeOne(user, options));
    return outcomes;
  }

  async #writeOne(user: StoredObject, options: WriteOptions): Promise<RowOutcome> {
    if ((await this.#store.get(this.#appId, userClass, user.objectId)) !== null) return { kind: 'present' };
    if (options.dryRun) return this.#wouldInsert(user);
    try {
      await this.#store.insert(this.#appId, userClass, user);
      return { kind: 'imported' };
    } catch (error) {
      if (!(error instanceof DuplicateValueError)) throw error;
      if (error.field === 'objectId') return { kind: 'present' };
      return clash(error);
    }
  }

  /** What an insert would answer, read from the unique values other users hold. */
  async #wouldInsert(user: StoredObject): Promise<RowOutcome> {
    for (const key of userClassDescriptor.uniqueKeys(user)) {
      const holder = await this.#store.findByUnique(this.#appId, userClass, key);
      if (holder !== null && holder.objectId !== user.objectId) return clash(new DuplicateValueError(key.field));
    }
    return { kind: 'imported' };
  }
}

function userOutcome(outcome: BulkInsertOutcome): RowOutcome {
  if (outcome.kind === 'inserted') return { kind: 'imported' };
  if (outcome.kind === 'present' || outcome.field === 'objectId') return { kind: 'present' };
  return clash(new DuplicateValueError(outcome.field));
}

function clash(error: DuplicateValueError): RowOutcome {
  const answer = duplicateToHeraldError(error);
  return { kind: 'rejected', code: answer.code, reason: `${answer.message} Another user of the app holds it (stored before, or an earlier row).` };
}
