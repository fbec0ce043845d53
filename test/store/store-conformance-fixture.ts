import { randomBytes, randomUUID } from 'node:crypto';
import { expect } from 'vitest';
import type { Clock } from '../../src/core/clock.ts';
import { DuplicateValueError } from '../../src/core/errors.ts';
import type { ClassDescriptors, Store, StoredObject, UniqueKey } from '../../src/core/ports/object-store.ts';

/** What an adapter's test hands the conformance suite. */
export interface StoreFixture {
  store: Store;
  /** Opens another instance (its own connection or client) on the same backing data. */
  openAnother(): Promise<Store>;
  /** Closes every instance opened and removes the backing data. */
  cleanup(): Promise<void>;
}

/** Access to the suite's stores from inside its tests. */
export interface ConformanceContext {
  store(): Store;
  openAnother(): Promise<Store>;
}

/** `_User`-like unique keys: username, email, mobilePhoneNumber and each `authData.<platform>.uid`. */
export const conformanceClasses: ClassDescriptors = {
  _User: {
    uniqueKeys(user) {
      const keys: UniqueKey[] = [];
      for (const field of ['username', 'email', 'mobilePhoneNumber']) {
        const value = user[field];
        if (typeof value === 'string') keys.push({ field, value });
      }
      const authData = user.authData;
      if (isRecord(authData)) {
        for (const [platform, data] of Object.entries(authData)) {
          if (isRecord(data) && typeof data.uid === 'string') keys.push({ field: `authData.${platform}.uid`, value: data.uid });
        }
      }
      return keys;
    },
  },
};

/**
 * The suite's "now", handed to each adapter: tokens are put and checked
 * against it, so an adapter that purges expired tokens by its own clock must
 * take the time from here.
 */
export const conformanceClock: Clock = { now: () => Date.parse('2025-06-01T00:00:00.000Z') };

export function newAppId(): string {
  return `app-${randomUUID()}`;
}

let clock = Date.parse('2025-01-01T00:00:00.000Z');

/** A new object with a random id and a createdAt later than every earlier one. */
export function newObject(fields: Record<string, unknown> = {}): StoredObject {
  clock += 1000;
  const at = new Date(clock).toISOString();
  return { objectId: randomBytes(5).toString('hex'), createdAt: at, updatedAt: at, ...fields };
}

/** Awaits a write that must fail on a unique value, and answers the field named. */
export async function duplicateField(write: Promise<unknown>): Promise<string> {
  const error = await write.then(
    () => null,
    (reason: unknown) => reason,
  );
  expect(error).toBeInstanceOf(DuplicateValueError);
  return (error as DuplicateValueError).field;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
