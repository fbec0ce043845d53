import { setTimeout as delay } from 'node:timers/promises';
import { DuplicateValueError, ServiceUnavailableError } from '../../core/errors.ts';
import type { ClassDescriptors, FieldOp, StoredObject, UniqueKey, UpdateOptions } from '../../core/ports/object-store.ts';
import { applyOps } from '../../query/apply-ops.ts';
import type { CqlSession } from './cassandra-client.ts';
import type { ObjectTable } from './object-table.ts';
import { UniqueClaims } from './unique-claims.ts';

/** Attempts of a read–modify–write before answering 503; each lost one means another write went through. */
const maxWriteAttempts = 60;

/**
 * Inserts, updates and deletes: object rows written with lightweight
 * transactions on their revision, unique values claimed before and settled
 * (confirmed when the write was slow) or released after (see
 * unique-claims.ts). Updates are
 * optimistic: read, apply the ops, write `IF rev = <read>`, and on
 * conflict read again, so concurrent increments are never lost.
 */
export class ObjectWrites {
  readonly #objects: ObjectTable;
  readonly #claims: UniqueClaims;
  readonly #classes: ClassDescriptors;

  constructor(session: CqlSession, keyspace: string, objects: ObjectTable, classes: ClassDescriptors) {
    this.#objects = objects;
    this.#classes = classes;
    this.#claims = new UniqueClaims(session, keyspace, async (appId, className, objectId, key, serial) => {
      const row = await objects.read(appId, className, objectId, serial);
      return row !== null && this.#holds(className, row.object, key);
    });
  }

  async insert(appId: string, className: string, object: StoredObject): Promise<void> {
    const claims = await this.#claims.acquireAll(appId, className, object.objectId, this.#uniqueKeys(className, object));
    if (!(await this.#objects.insert(appId, className, object))) {
      await this.#claims.abandon(appId, className, claims);
      throw new DuplicateValueError('objectId');
    }
    const lost = await this.#claims.confirmAll(appId, className, object.objectId, claims);
    if (lost !== null) {
      await this.#objects.delete(appId, className, object.objectId, 1).catch(() => false);
      await this.#claims.abandon(appId, className, claims);
      throw new DuplicateValueError(lost.field);
    }
  }

  async update(appId: string, className: string, objectId: string, ops: FieldOp[], options: UpdateOptions): Promise<StoredObject | null> {
    for (let attempt = 1; ; attempt += 1) {
      const row = await this.#objects.read(appId, className, objectId);
      if (row === null) return null;
      const current = row.object;
      const next: StoredObject = { ...applyOps(current, ops), objectId, createdAt: current.createdAt, updatedAt: options.updatedAt };
      const held = this.#uniqueKeys(className, current);
      const wanted = this.#uniqueKeys(className, next);
      const claims = await this.#claims.acquireAll(appId, className, objectId, without(wanted, held));
      if (!(await this.#objects.replace(appId, className, next, row.rev))) {
        await this.#claims.abandon(appId, className, claims);
        await backOff(attempt);
        continue;
      }
      const lost = await this.#claims.confirmAll(appId, className, objectId, claims);
      if (lost !== null) {
        // Put the object back as it was; the values it held are still claimed for it.
        await this.#objects.replace(appId, className, current, row.rev + 1).catch(() => false);
        await this.#claims.abandon(appId, className, claims);
        throw new DuplicateValueError(lost.field);
      }
      await this.#claims.releaseAll(appId, className, objectId, without(held, wanted));
      return next;
    }
  }

  async delete(appId: string, className: string, objectId: string): Promise<boolean> {
    for (let attempt = 1; ; attempt += 1) {
      const row = await this.#objects.read(appId, className, objectId);
      if (row === null) return false;
      if (await this.#objects.delete(appId, className, objectId, row.rev)) {
        await this.#claims.releaseAll(appId, className, objectId, this.#uniqueKeys(className, row.object));
        return true;
      }
      await backOff(attempt);
    }
  }

  /** The object holding `key`, or null; a claim its object does not back is ignored. */
  async findByUnique(appId: string, className: string, key: UniqueKey): Promise<StoredObject | null> {
    const owner = await this.#claims.owner(appId, className, key);
    if (owner === null) return null;
    const row = await this.#objects.read(appId, className, owner);
    return row !== null && this.#holds(className, row.object, key) ? row.object : null;
  }

  #holds(className: string, object: StoredObject, key: UniqueKey): boolean {
    return this.#uniqueKeys(className, object).some((own) => own.field === key.field && own.value === key.value);
  }

  #uniqueKeys(className: string, object: StoredObject): UniqueKey[] {
    const keys = this.#classes[className]?.uniqueKeys(object) ?? [];
    return [...new Map(keys.map((key) => [keyId(key), key])).values()];
  }
}

function keyId(key: UniqueKey): string {
  return `${key.field}\u0000${key.value}`;
}

function without(keys: readonly UniqueKey[], drop: readonly UniqueKey[]): UniqueKey[] {
  const dropped = new Set(drop.map(keyId));
  return keys.filter((key) => !dropped.has(keyId(key)));
}

/** Waits a random time that grows with the attempts, so that contending writers spread out; gives up after the last. */
async function backOff(attempt: number): Promise<void> {
  if (attempt >= maxWriteAttempts) {
    throw new ServiceUnavailableError('Cassandra', new Error(`gave up after ${attempt} conflicting writes to one object`));
  }
  await delay(Math.random() * Math.min(200, 5 * 2 ** attempt));
}
