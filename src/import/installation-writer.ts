import { DuplicateValueError } from '../core/errors.ts';
import type { BulkInsertOutcome, BulkInserts } from '../core/ports/bulk-inserts.ts';
import type { StoredObject } from '../core/ports/object-store.ts';
import { installationClass } from '../devices/installation-fields.ts';
import { deviceKeyTaken } from '../devices/installation-records.ts';
import { deviceKeys } from '../store/installation-shards.ts';
import { inFileOrder } from './batch-order.ts';
import { bulkBatchRows, type ClassWriter, type RowOutcome, type WriteOptions } from './class-writer.ts';
import type { ImportStore } from './import-store.ts';
import { readInstallationRow } from './installation-rows.ts';

/** Installations per `insertMany` (a transaction on the embedded store). */
export const defaultInstallationBatch = 500;

/**
 * Installations go into the installation store in batches (`insertMany`),
 * which shards them, writes their channel and device-type index entries and
 * holds each deviceToken and installationId unique per app, as a save
 * through the API does. A batch that meets a clash is finished row by row,
 * so that only the clashing rows are refused, the first of two rows sharing
 * a device winning. An installation whose objectId is already stored is
 * left as it is.
 *
 * Where the store has bulk inserts (Cassandra), a batch goes through them
 * instead, with the same rules; installations found stored are the ones
 * repaired on resuming.
 */
export class InstallationWriter implements ClassWriter {
  readonly className = installationClass;
  readonly batchSize: number;
  readonly #store: ImportStore;
  readonly #appId: string;
  readonly #bulk: BulkInserts | null;

  /** `batchSize`: rows written together; by default `defaultInstallationBatch`, or `bulkBatchRows._Installation` through bulk inserts. */
  constructor(store: ImportStore, appId: string, batchSize?: number, bulk: BulkInserts | null = null) {
    this.#store = store;
    this.#appId = appId;
    this.batchSize = batchSize ?? (bulk === null ? defaultInstallationBatch : bulkBatchRows._Installation);
    this.#bulk = bulk;
  }

  prepare(row: Record<string, unknown>): StoredObject {
    return readInstallationRow(row);
  }

  keysOf(installation: StoredObject): string[] {
    return [`objectId\u0000${installation.objectId}`, ...deviceKeys(installation).map((key) => `${key.field}\u0000${key.value}`)];
  }

  async write(installations: readonly StoredObject[], options: WriteOptions): Promise<RowOutcome[]> {
    if (this.#bulk !== null && !options.dryRun) return this.#writeBulk(this.#bulk, installations, options.repair);
    const store = this.#store.installations;
    const stored = await Promise.all(installations.map((installation) => store.get(this.#appId, installation.objectId)));
    const outcomes = new Map<StoredObject, RowOutcome>();
    const fresh: StoredObject[] = [];
    const later: StoredObject[] = [];
    const batchKeys = new Set<string>();
    for (const [index, installation] of installations.entries()) {
      const existing = stored[index];
      if (existing) {
        // An earlier run may have stopped between the row and its index entries: writing it again as it is makes the store finish them.
        if (options.repair && !options.dryRun) await store.update(this.#appId, existing.objectId, [], { updatedAt: existing.updatedAt });
        outcomes.set(installation, { kind: 'present' });
        continue;
      }
      const keys = this.keysOf(installation);
      // A device named twice in one batch is written after the others, in order, so the first row wins wherever the store runs.
      (keys.some((key) => batchKeys.has(key)) ? later : fresh).push(installation);
      for (const key of keys) batchKeys.add(key);
    }
    if (options.dryRun) {
      for (const installation of [...fresh, ...later]) outcomes.set(installation, await this.#wouldInsert(installation, outcomes));
    } else {
      await this.#insert(fresh, later, outcomes);
    }
    return installations.map((installation) => outcomes.get(installation) ?? { kind: 'imported' });
  }

  async #writeBulk(bulk: BulkInserts, installations: readonly StoredObject[], repair: boolean): Promise<RowOutcome[]> {
    const outcomes = await inFileOrder(installations, (installation) => this.keysOf(installation), (batch) => bulk.insertInstallations(this.#appId, batch));
    // An earlier run may have stopped between the rows and their index entries: the rows found stored get theirs again.
    if (repair) await bulk.repairInstallations(this.#appId, installations.filter((_, index) => outcomes[index]?.kind === 'present').map((installation) => installation.objectId));
    return outcomes.map(installationOutcome);
  }

  async #insert(fresh: StoredObject[], later: StoredObject[], outcomes: Map<StoredObject, RowOutcome>): Promise<void> {
    let failed = false;
    try {
      await this.#store.installations.insertMany(this.#appId, fresh);
      for (const installation of fresh) outcomes.set(installation, { kind: 'imported' });
    } catch (error) {
      if (!(error instanceof DuplicateValueError)) throw error;
      failed = true;
    }
    if (failed) for (const installation of fresh) outcomes.set(installation, await this.#insertOne(installation, { kind: 'imported' }));
    for (const installation of later) outcomes.set(installation, await this.#insertOne(installation, { kind: 'present' }));
  }

  /**
   * Inserts one installation. One found stored was absent before this batch:
   * `found` says whether the failed `insertMany` wrote it (a fresh row) or an
   * earlier row of the batch with the same objectId did (a later one).
   */
  async #insertOne(installation: StoredObject, found: RowOutcome): Promise<RowOutcome> {
    const store = this.#store.installations;
    if ((await store.get(this.#appId, installation.objectId)) !== null) return found;
    try {
      await store.insert(this.#appId, installation);
      return { kind: 'imported' };
    } catch (error) {
      if (!(error instanceof DuplicateValueError)) throw error;
      if (error.field === 'objectId') return found;
      return clash(error);
    }
  }

  /** What an insert would answer: a device held by a stored installation, or by an earlier row of this batch, is refused. */
  async #wouldInsert(installation: StoredObject, decided: Map<StoredObject, RowOutcome>): Promise<RowOutcome> {
    for (const [other, outcome] of decided) {
      if (other !== installation && outcome.kind === 'imported' && other.objectId === installation.objectId) return { kind: 'present' };
    }
    for (const key of deviceKeys(installation)) {
      const holder = await this.#store.installations.findByDevice(this.#appId, key);
      if (holder !== null && holder.objectId !== installation.objectId) return clash(new DuplicateValueError(key.field));
      for (const [other, outcome] of decided) {
        if (other !== installation && outcome.kind === 'imported' && other[key.field] === key.value) return clash(new DuplicateValueError(key.field));
      }
    }
    return { kind: 'imported' };
  }
}

function installationOutcome(outcome: BulkInsertOutcome): RowOutcome {
  if (outcome.kind === 'inserted') return { kind: 'imported' };
  if (outcome.kind === 'present' || outcome.field === 'objectId') return { kind: 'present' };
  return clash(new DuplicateValueError(outcome.field));
}

function clash(error: DuplicateValueError): RowOutcome {
  const answer = deviceKeyTaken(error);
  return { kind: 'rejected', code: answer.code, reason: answer.message };
}
