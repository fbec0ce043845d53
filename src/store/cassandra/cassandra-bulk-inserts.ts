import type { types } from 'cassandra-driver';
import type { BulkInsertOptions, BulkInsertOutcome, BulkInserts, BulkWriteReport } from '../../core/ports/bulk-inserts.ts';
import type { ClassDescriptors, StoredObject, UniqueKey } from '../../core/ports/object-store.ts';
import { deviceKeys, installationIndexKeys } from '../installation-shards.ts';
import { AdaptiveLimit } from './adaptive-limit.ts';
import { BulkClaims } from './bulk-claims.ts';
import type { CqlSession } from './cassandra-client.ts';
import { InstallationIndexEntries } from './installation-index-entries.ts';
import { InstallationRows } from './installation-rows.ts';
import { objectBucket, ObjectTable } from './object-table.ts';
import { PacedSession } from './paced-session.ts';
import { ConditionalBatcher, PlainBatcher } from './partition-batcher.ts';
import type { Claim } from './unique-claims.ts';
import { chunks } from '../../core/chunks.ts';

/** The class name under which device keys are claimed, as CassandraInstallationStore does. */
const installationClass = '_Installation';
/**
 * Rows of one batch: claims are small; documents up to 64 as long as they
 * fit in 48 KiB, under Cassandra's default 50 KiB batch size limit (a
 * lightweight transaction's proposal and commit carry the whole batch);
 * index entries are keys alone.
 */
export const claimsPerBatch = 64;
export const documentsPerBatch = 64;
export const documentBatchBytes = 48 * 1024;
export const entriesPerBatch = 128;
/**
 * How far below the import's clock (µs) an installation's row is written
 * (see insertInstallations): the clock skew between the importing host and
 * the Cassandra nodes that its writes tolerate.
 */
export const importLagMicros = 60_000_000;
/** Object ids of one `IN` read. */
const idsPerRead = 100;

export interface BulkInsertsContext {
  keyspace: string;
  classes: ClassDescriptors;
  shardOf: (objectId: string) => number;
  fetchSize: number;
}

/**
 * Bulk inserts on Cassandra, for `herald import`: the same rows and the same
 * rules as one insert at a time (unique values claimed first in
 * `unique_claims`, the object written `IF NOT EXISTS`, claims confirmed when
 * the write was slow, given back when it was refused; an installation's index
 * entries after its row, at its revision's timestamp), but the statements of
 * many objects meet: claims of one partition go as one conditional batch,
 * documents of one partition as another, index entries of one partition as an
 * unlogged batch, every statement prepared. An installation's row is the one
 * write that is not a lightweight transaction (see insertInstallations).
 * Statements in flight are bounded by an AdaptiveLimit (sized from the
 * latencies it measures) through a PacedSession, which sends again what timed
 * out or found the node overloaded and gives up only once Cassandra has
 * answered nothing for the patience.
 */
export class CassandraBulkInserts implements BulkInserts {
  readonly #session: PacedSession;
  readonly #classes: ClassDescriptors;
  readonly #shardOf: (objectId: string) => number;
  readonly #objects: ObjectTable;
  readonly #rows: InstallationRows;
  readonly #index: InstallationIndexEntries;
  readonly #objectClaims: BulkClaims;
  readonly #deviceClaims: BulkClaims;
  readonly #objectDocuments: ConditionalBatcher;
  readonly #entries: PlainBatcher;
  readonly #installationDocuments: PlainBatcher;

  constructor(session: CqlSession, context: BulkInsertsContext, options: BulkInsertOptions) {
    const limit = new AdaptiveLimit({ initial: Math.max(1, Math.floor(options.maxInFlight / 4)), min: 1, max: options.maxInFlight });
    this.#session = new PacedSession(session, { limit, patienceMs: options.patienceMs, signal: options.signal });
    const paced = this.#session;
    const inFlight = () => limit.limit;
    this.#classes = context.classes;
    this.#shardOf = context.shardOf;
    this.#objects = new ObjectTable(paced, context.keyspace, context.fetchSize);
    this.#rows = new InstallationRows(paced, context.keyspace, context.shardOf);
    this.#index = new InstallationIndexEntries(paced, context.keyspace, context.shardOf);
    this.#objectClaims = new BulkClaims(
      paced,
      context.keyspace,
      async (appId, className, objectId, key, serial) => {
        const row = await this.#objects.read(appId, className, objectId, serial);
        return row !== null && holds(this.#uniqueKeys(className, row.object), key);
      },
      { maxRows: claimsPerBatch, inFlight },
    );
    this.#deviceClaims = new BulkClaims(
      paced,
      context.keyspace,
      async (appId, _className, objectId, key, serial) => {
        const row = await this.#rows.read(appId, objectId, serial);
        return row !== null && holds(deviceKeys(row.doc), key);
      },
      { maxRows: claimsPerBatch, inFlight },
    );
    this.#objectDocuments = new ConditionalBatcher(paced, { maxRows: documentsPerBatch, maxBytes: documentBatchBytes, inFlight }, (row) => String(row.get('object_id')));
    this.#entries = new PlainBatcher(paced, { maxRows: entriesPerBatch, inFlight });
    this.#installationDocuments = new PlainBatcher(paced, { maxRows: documentsPerBatch, maxBytes: documentBatchBytes, inFlight });
  }

  async insertObjects(appId: string, className: string, objects: readonly StoredObject[]): Promise<BulkInsertOutcome[]> {
    const present = await readByGroup(objects, (object) => objectBucket(object.objectId), (bucket, ids) => this.#objects.present(appId, className, bucket, ids));
    return Promise.all(
      objects.map(async (object): Promise<BulkInsertOutcome> => {
        if (present.has(object.objectId)) return { kind: 'present' };
        const doc = JSON.stringify(object);
        const group = `o\u0000${appId}\u0000${className}\u0000${String(objectBucket(object.objectId))}`;
        const statement = this.#objects.insertStatement(appId, className, object, doc);
        return this.#insertOne(this.#objectClaims, appId, className, object, this.#uniqueKeys(className, object), {
          write: async () => {
            const written = await this.#objectDocuments.write({
              group,
              key: object.objectId,
              statement,
              bytes: Buffer.byteLength(doc),
              // The same document standing there is this write, applied by an attempt whose answer was lost.
              judge: (current: types.Row | undefined) => (current === undefined ? 'free' : current.get('doc') === doc ? 'held' : 'refused'),
            });
            return written.applied;
          },
          undo: () => this.#objects.delete(appId, className, object.objectId, 1),
        });
      }),
    );
  }

  /**
   * An installation found absent is written without `IF NOT EXISTS`, at a
   * write time `importLagMicros` below the import's clock, after its device's
   * claim. Only a write of that very objectId could stand in its way, and
   * the API never writes an objectId it did not make: what may meet it is
   * another import of the same row (the same document) or a save or delete
   * of the row once imported, a lightweight transaction whose Paxos ballot
   * (the coordinator's clock) is above the import's write time while the
   * clocks are less than a minute apart. The claims' rules are unchanged: a
   * serial read sees a row written at quorum, and a claim taken over
   * meanwhile still undoes the row with `DELETE … IF rev = 1`.
   */
  async insertInstallations(appId: string, installations: readonly StoredObject[]): Promise<BulkInsertOutcome[]> {
    const present = await readByGroup(installations, (installation) => this.#shardOf(installation.objectId), (shard, ids) => this.#rows.present(appId, shard, ids));
    return Promise.all(
      installations.map(async (installation) => {
        if (present.has(installation.objectId)) return { kind: 'present' } as const;
        const doc = JSON.stringify(installation);
        const ts = Date.now() * 1000;
        const added = installationIndexKeys(installation);
        const outcome = await this.#insertOne(this.#deviceClaims, appId, installationClass, installation, deviceKeys(installation), {
          write: async () => {
            await this.#installationDocuments.write({
              group: `i\u0000${appId}\u0000${String(this.#shardOf(installation.objectId))}`,
              statement: this.#rows.plainInsertStatement(appId, installation, doc, ts, added, ts - importLagMicros),
              bytes: Buffer.byteLength(doc),
            });
            return true;
          },
          undo: () => this.#rows.delete(appId, installation.objectId, 1),
        });
        // The row lists its entries (`added`): a run stopped before they are all written puts them back on resuming (repairInstallations).
        if (outcome.kind === 'inserted') await Promise.all(this.#index.addRows(appId, installation.objectId, added, ts).map((row) => this.#entries.write(row)));
        return outcome;
      }),
    );
  }

  async repairInstallations(appId: string, objectIds: readonly string[]): Promise<void> {
    const byShard = Map.groupBy(objectIds, (objectId) => this.#shardOf(objectId));
    await Promise.all(
      [...byShard].flatMap(([shard, ids]) =>
        chunks(ids, idsPerRead).map(async (chunk) => {
          const rows = await this.#rows.readRows(appId, shard, chunk);
          await Promise.all(
            rows.map(async (row) => {
              // What the row's revision added and retired, again at its timestamp, as its next save would.
              await Promise.all(this.#index.addRows(appId, row.doc.objectId, row.added, row.ts).map((entry) => this.#entries.write(entry)));
              await this.#index.remove(appId, row.doc.objectId, row.retired, row.ts);
            }),
          );
        }),
      ),
    );
  }

  report(): BulkWriteReport {
    const { answered, retried, congested, unreachable, lastLatencyMs, startingLimit, lowestLimit, limit } = this.#session.report();
    return { answered, retried, congested, unreachable, lastLatencyMs, startingLimit, lowestLimit, limit };
  }

  /**
   * Claims the object's values, writes its row (`write` answers false when
   * another row stood there), and confirms the claims when that took long;
   * undoes what it did when refused.
   */
  async #insertOne(
    claims: BulkClaims,
    appId: string,
    className: string,
    object: StoredObject,
    keys: readonly UniqueKey[],
    row: { write: () => Promise<boolean>; undo: () => Promise<boolean> },
  ): Promise<BulkInsertOutcome> {
    const [claimed] = await claims.claimAll(appId, className, [{ objectId: object.objectId, keys }]);
    if (claimed === undefined) throw new Error('no claims outcome');
    if ('taken' in claimed) return { kind: 'taken', field: claimed.taken };
    if (!(await row.write())) {
      await claims.abandon(appId, className, claimed.claims);
      return { kind: 'present' };
    }
    const lost = await confirm(claims, appId, className, object.objectId, claimed.claims);
    if (lost !== null) {
      await row.undo().catch(() => false);
      await claims.abandon(appId, className, claimed.claims);
      return { kind: 'taken', field: lost.field };
    }
    return { kind: 'inserted' };
  }

  #uniqueKeys(className: string, object: StoredObject): UniqueKey[] {
    const keys = this.#classes[className]?.uniqueKeys(object) ?? [];
    return [...new Map(keys.map((key) => [`${key.field}\u0000${key.value}`, key])).values()];
  }
}

/** Confirms the claims when the object's write came too late to go without (see unique-claims.ts); answers a key taken over meanwhile. */
async function confirm(claims: BulkClaims, appId: string, className: string, objectId: string, taken: readonly Claim[]): Promise<UniqueKey | null> {
  if (taken.length === 0) return null;
  return claims.claims.confirmAll(appId, className, objectId, taken);
}

function holds(keys: readonly UniqueKey[], key: UniqueKey): boolean {
  return keys.some((own) => own.field === key.field && own.value === key.value);
}

/** The objectIds found stored, read a partition (`groupOf`) at a time, at most `idsPerRead` ids a read. */
async function readByGroup(objects: readonly StoredObject[], groupOf: (object: StoredObject) => number, read: (group: number, ids: string[]) => Promise<Set<string>>): Promise<Set<string>> {
  const groups = Map.groupBy(objects, groupOf);
  const found = await Promise.all([...groups].flatMap(([group, members]) => chunks(members.map((member) => member.objectId), idsPerRead).map((ids) => read(group, ids))));
  return new Set(found.flatMap((ids) => [...ids]));
}
