import { setTimeout as delay } from 'node:timers/promises';
import { DuplicateValueError, ServiceUnavailableError } from '../../core/errors.ts';
import { maxRegistrationHolders, type DeviceKey, type InstallationPage, type InstallationStore, type ShardRange, type ShardScan, type StampPage } from '../../core/ports/installation-store.ts';
import type { FieldOp, StoredObject, UniqueKey, UpdateOptions } from '../../core/ports/object-store.ts';
import { applyOps } from '../../query/apply-ops.ts';
import { checkShardScan, deviceKeys, inIndex, indexKey, installationIndexKeys, installationRegistrationId, installationShard, pageOf, parseIndexKey, stamp } from '../installation-shards.ts';
import type { CqlSession } from './cassandra-client.ts';
import { InstallationIndexEntries, type IndexChanges } from './installation-index-entries.ts';
import { InstallationRows, type InstallationRow } from './installation-rows.ts';
import { UniqueClaims } from './unique-claims.ts';

/** The class name under which device keys are claimed in `unique_claims`. */
const installationClass = '_Installation';
/** Attempts of a read–modify–write before answering 503; each lost one means another write went through. */
const maxWriteAttempts = 60;
/** Installations `insertMany` writes at once. */
const insertConcurrency = 32;

/**
 * Installations in `installations` by (app, shard), with entries naming them
 * in `installations_by_channel`, `installations_by_type` and
 * `installations_by_registration`, and deviceToken
 * and installationId claimed in `unique_claims` (see unique-claims.ts).
 *
 * A save reads the row, writes the new revision with a lightweight
 * transaction on the old one, then writes the index entries its revision
 * adds or retires (none for a save that changes no channel and no device
 * type: a badge, a re-save on launch) with the revision's timestamp `ts`
 * (strictly increasing per installation), so a slower save's entries never
 * overwrite a later one's. The row lists those changes (`added`,
 * `retired`); the next save applies them again before replacing the row, so
 * entries left unwritten by a writer that died after its row write are put
 * right by the installation's next save. A page of an index reads its
 * entries, then the rows they name from the shard's partition in one read,
 * keeping those whose document is still in the index. A delete removes the
 * entries before the row: a writer dying in between leaves a live
 * installation without entries until its next save, never entries of a
 * deleted one.
 */
export class CassandraInstallationStore implements InstallationStore {
  readonly shardCount: number;
  readonly #rows: InstallationRows;
  readonly #index: InstallationIndexEntries;
  readonly #claims: UniqueClaims;

  constructor(session: CqlSession, keyspace: string, shardCount: number) {
    this.shardCount = shardCount;
    const shardOf = (objectId: string): number => this.shardOf(objectId);
    this.#rows = new InstallationRows(session, keyspace, shardOf);
    this.#index = new InstallationIndexEntries(session, keyspace, shardOf);
    this.#claims = new UniqueClaims(session, keyspace, async (appId, _className, objectId, key, serial) => {
      const row = await this.#rows.read(appId, objectId, serial);
      return row !== null && holds(row.doc, key);
    });
  }

  shardOf(objectId: string): number {
    return installationShard(objectId, this.shardCount);
  }

  async insert(appId: string, installation: StoredObject): Promise<void> {
    const claims = await this.#claims.acquireAll(appId, installationClass, installation.objectId, deviceKeys(installation));
    const ts = nowMicros();
    const added = installationIndexKeys(installation);
    if (!(await this.#rows.insert(appId, installation, ts, added))) {
      await this.#claims.abandon(appId, installationClass, claims);
      throw new DuplicateValueError('objectId');
    }
    const lost = await this.#claims.confirmAll(appId, installationClass, installation.objectId, claims);
    if (lost !== null) {
      // No entry was written yet: taking the row back is enough.
      await this.#rows.delete(appId, installation.objectId, 1).catch(() => false);
      await this.#claims.abandon(appId, installationClass, claims);
      throw new DuplicateValueError(lost.field);
    }
    await this.#index.apply(appId, installation.objectId, { added, retired: [] }, ts);
  }

  async insertMany(appId: string, installations: StoredObject[]): Promise<void> {
    let next = 0;
    let failure: { error: unknown } | null = null;
    const worker = async (): Promise<void> => {
      while (failure === null && next < installations.length) {
        const installation = installations[next];
        next += 1;
        if (installation === undefined) continue;
        try {
          await this.insert(appId, installation);
        } catch (error) {
          failure ??= { error };
        }
      }
    };
    await Promise.all(Array.from({ length: Math.min(insertConcurrency, installations.length) }, worker));
    if (failure !== null) throw (failure as { error: unknown }).error;
  }

  async get(appId: string, objectId: string): Promise<StoredObject | null> {
    return (await this.#rows.read(appId, objectId))?.doc ?? null;
  }

  /** The installations whose entries name `registrationId`, read from their shards; an entry its installation no longer backs is ignored. */
  async findByRegistrationId(appId: string, registrationId: string): Promise<StoredObject[]> {
    if (registrationId === '') return [];
    const holders = await this.#index.holders(appId, registrationId, maxRegistrationHolders);
    const byShard = Map.groupBy(holders, (objectId) => this.shardOf(objectId));
    const documents = await Promise.all([...byShard].map(([shard, objectIds]) => this.#rows.readMany(appId, shard, objectIds)));
    return documents
      .flat()
      .filter((installation) => installationRegistrationId(installation) === registrationId)
      .sort((a, b) => (a.objectId < b.objectId ? -1 : a.objectId > b.objectId ? 1 : 0));
  }

  /** The installation holding `key`; a claim its installation does not back is ignored. */
  async findByDevice(appId: string, key: DeviceKey): Promise<StoredObject | null> {
    const owner = await this.#claims.owner(appId, installationClass, key);
    if (owner === null) return null;
    const row = await this.#rows.read(appId, owner);
    return row !== null && holds(row.doc, key) ? row.doc : null;
  }

  update(appId: string, objectId: string, ops: FieldOp[], options: UpdateOptions): Promise<StoredObject | null> {
    return this.#save(appId, objectId, (current) => ({
      ...applyOps(current, ops),
      objectId,
      createdAt: current.createdAt,
      updatedAt: options.updatedAt,
    }));
  }

  delete(appId: string, objectId: string): Promise<boolean> {
    return this.#delete(appId, objectId, null);
  }

  deleteIfUnchanged(appId: string, objectId: string, updatedAt: string): Promise<boolean> {
    return this.#delete(appId, objectId, updatedAt);
  }

  async scanShard(appId: string, scan: ShardScan): Promise<InstallationPage> {
    checkShardScan(scan.shard, scan.limit, this.shardCount);
    const after = scan.after ?? '';
    const { index } = scan;
    if (index.kind === 'all') {
      const { items, next } = pageOf(await this.#rows.page(appId, scan.shard, after, scan.limit + 1), scan.limit, (installation) => installation);
      return { installations: items, next };
    }
    const { items: members, next } = pageOf(await this.#index.page(appId, index, scan.shard, after, scan.limit + 1), scan.limit, (objectId) => ({ objectId }));
    // An entry can outlive its revision for a moment (a save or delete between its two writes): the document decides.
    const documents = await this.#rows.readMany(appId, scan.shard, members.map(({ objectId }) => objectId));
    return { installations: documents.filter((installation) => inIndex(installation, index)), next };
  }

  async scanShardStamps(appId: string, range: ShardRange): Promise<StampPage> {
    // A row keeps its document as one JSON text, which Cassandra cannot take a field out of: the page is read whole.
    const page = await this.scanShard(appId, { ...range, index: { kind: 'all' } });
    return { stamps: page.installations.map((installation) => stamp(installation.objectId, installation.updatedAt)), next: page.next };
  }

  /**
   * Writes `change(current)` as the next revision, retrying on conflicts,
   * with the index entries it changes. `minTs` forces the entries' timestamp
   * above one already used, and `rewriteAll` writes every entry of the
   * revision, changed or not (after a delete removed them).
   */
  async #save(
    appId: string,
    objectId: string,
    change: (current: StoredObject) => StoredObject,
    { minTs = 0, rewriteAll = false }: { minTs?: number; rewriteAll?: boolean } = {},
  ): Promise<StoredObject | null> {
    for (let attempt = 1; ; attempt += 1) {
      const row = await this.#rows.read(appId, objectId);
      if (row === null) return null;
      const next = change(row.doc);
      // Finish the previous revision's index changes, in case its writer stopped before them.
      await this.#index.apply(appId, objectId, row, row.ts);
      const held = deviceKeys(row.doc);
      const wanted = deviceKeys(next);
      const claims = await this.#claims.acquireAll(appId, installationClass, objectId, without(wanted, held));
      const ts = Math.max(nowMicros(), row.ts + 1, minTs);
      const changes = indexChanges(row, next, rewriteAll);
      if (!(await this.#rows.replace(appId, next, row.rev, ts, changes))) {
        await this.#claims.abandon(appId, installationClass, claims);
        await backOff(attempt);
        continue;
      }
      const lost = await this.#claims.confirmAll(appId, installationClass, objectId, claims);
      if (lost !== null) {
        // Put the installation back as it was; its entries were not touched yet.
        await this.#rows.replace(appId, row.doc, row.rev + 1, ts + 1, { added: [], retired: [] }).catch(() => false);
        await this.#claims.abandon(appId, installationClass, claims);
        throw new DuplicateValueError(lost.field);
      }
      await this.#claims.releaseAll(appId, installationClass, objectId, without(held, wanted));
      await this.#index.apply(appId, objectId, changes, ts);
      return next;
    }
  }

  /** Deletes the installation, or with `updatedAt` only while it is still the stored one. */
  async #delete(appId: string, objectId: string, updatedAt: string | null): Promise<boolean> {
    // The newest timestamp this call removed entries with; a save that slipped in may need its entries back.
    let removedAt = 0;
    for (let attempt = 1; ; attempt += 1) {
      const row = await this.#rows.read(appId, objectId);
      if (row === null) return false;
      if (updatedAt !== null && row.doc.updatedAt !== updatedAt) {
        await this.#restoreEntries(appId, row, removedAt);
        return false;
      }
      const ts = Math.max(nowMicros(), row.ts + 1, removedAt + 1);
      await this.#index.remove(appId, objectId, [...new Set([...installationIndexKeys(row.doc), ...registeredKeys(row), ...row.retired])], ts);
      removedAt = ts;
      if (await this.#rows.delete(appId, objectId, row.rev)) {
        await this.#claims.releaseAll(appId, installationClass, objectId, deviceKeys(row.doc));
        return true;
      }
      if (attempt >= maxWriteAttempts) {
        const current = await this.#rows.read(appId, objectId);
        if (current !== null) await this.#restoreEntries(appId, current, removedAt);
      }
      await backOff(attempt);
    }
  }

  /**
   * A delete that lost to a concurrent save may have removed that save's
   * entries with a later timestamp; writing the installation again as a new
   * revision above that timestamp, every entry with it, brings them back.
   */
  async #restoreEntries(appId: string, row: InstallationRow, removedAt: number): Promise<void> {
    if (row.ts >= removedAt) return;
    await this.#save(appId, row.doc.objectId, (current) => current, { minTs: removedAt + 1, rewriteAll: true });
  }
}

/**
 * The indexes a revision joins and leaves; with `rewriteAll`, every index it
 * is in counts as joined. The registrationId entry the row has is the one
 * its `registered` names, not the document's: a row written by a version
 * without such entries has none, so its next revision writes its
 * registrationId's.
 */
function indexChanges(before: InstallationRow, after: StoredObject, rewriteAll: boolean): IndexChanges {
  const was = new Set(installationIndexKeys(before.doc).filter((key) => parseIndexKey(key).kind !== 'registrationId'));
  for (const key of registeredKeys(before)) was.add(key);
  const now = installationIndexKeys(after);
  const keep = new Set(now);
  return { added: rewriteAll ? now : now.filter((key) => !was.has(key)), retired: [...was].filter((key) => !keep.has(key)) };
}

/** The registrationId entry the row says it has, if any. */
function registeredKeys(row: InstallationRow): string[] {
  return row.registered === null ? [] : [indexKey({ kind: 'registrationId', registrationId: row.registered })];
}

/** Microseconds since the epoch, the unit of Cassandra write timestamps. */
function nowMicros(): number {
  return Date.now() * 1000;
}

function holds(installation: StoredObject, key: UniqueKey): boolean {
  return deviceKeys(installation).some((own) => own.field === key.field && own.value === key.value);
}

function without(keys: readonly DeviceKey[], drop: readonly DeviceKey[]): DeviceKey[] {
  return keys.filter((key) => !drop.some((other) => other.field === key.field && other.value === key.value));
}

/** Waits a random time that grows with the attempts, so that contending writers spread out; gives up after the last. */
async function backOff(attempt: number): Promise<void> {
  if (attempt >= maxWriteAttempts) {
    throw new ServiceUnavailableError('Cassandra', new Error(`gave up after ${attempt} conflicting writes to one installation`));
  }
  await delay(Math.random() * Math.min(200, 5 * 2 ** attempt));
}
