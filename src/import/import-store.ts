import type { BulkInsertOptions, BulkInserts } from '../core/ports/bulk-inserts.ts';
import type { InstallationStore } from '../core/ports/installation-store.ts';
import type { ObjectStore } from '../core/ports/object-store.ts';

/** The parts of the store an import reads and writes. */
export interface ImportStore extends Pick<ObjectStore, 'get' | 'findByUnique' | 'insert'> {
  readonly installations: Pick<InstallationStore, 'get' | 'findByDevice' | 'insert' | 'insertMany' | 'update'>;
  /** Many inserts in few round trips, where the store has them (Cassandra); an import writes through them when it can. */
  bulkInserts?(options: BulkInsertOptions): BulkInserts;
}

/**
 * A store with nothing in it, that refuses writes: what a dry run compares
 * the files with when the embedded store's database does not exist yet (a
 * dry run must not create it).
 */
export const emptyImportStore: ImportStore = {
  get: () => Promise.resolve(null),
  findByUnique: () => Promise.resolve(null),
  insert: () => Promise.reject(new Error('a dry run writes nothing')),
  installations: {
    get: () => Promise.resolve(null),
    findByDevice: () => Promise.resolve(null),
    insert: () => Promise.reject(new Error('a dry run writes nothing')),
    insertMany: () => Promise.reject(new Error('a dry run writes nothing')),
    update: () => Promise.reject(new Error('a dry run writes nothing')),
  },
};
