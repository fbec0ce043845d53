import { describe, expect, it } from 'vitest';
import { DuplicateValueError, ErrorCode, HeraldError, PreconditionFailedError } from '../../src/core/errors.ts';
import type { FieldOp, Store, StoredObject } from '../../src/core/ports/object-store.ts';
import { queryAll } from '../../src/query/query.ts';
import { duplicateField, newAppId, newObject, type ConformanceContext } from './store-conformance-fixture.ts';

const later = '2030-01-01T00:00:00.000Z';

/** Inserts, reads, unique keys, partial updates and deletes. */
export function describeWriteConformance(context: ConformanceContext): void {
  const insertUser = async (store: Store, appId: string, fields: Record<string, unknown>): Promise<StoredObject> => {
    const user = newObject(fields);
    await store.insert(appId, '_User', user);
    return user;
  };
  const usernameOwner = async (appId: string, username: string): Promise<string | undefined> =>
    (await context.store().findByUnique(appId, '_User', { field: 'username', value: username }))?.objectId;

  describe('objects', () => {
    it('gets back an inserted object unchanged, nested values included', async () => {
      const store = context.store();
      const appId = newAppId();
      const thing = newObject({ title: 'hello', count: 3, tags: ['a', 'b'], nested: { deep: { value: true } }, empty: null });
      await store.insert(appId, 'Thing', thing);
      expect(await store.get(appId, 'Thing', thing.objectId)).toEqual(thing);
    });

    it('answers null or false for an object that does not exist', async () => {
      const store = context.store();
      const appId = newAppId();
      expect(await store.get(appId, 'Thing', 'missing')).toBeNull();
      expect(await store.update(appId, 'Thing', 'missing', [{ op: 'set', path: ['a'], value: 1 }], { updatedAt: later })).toBeNull();
      expect(await store.delete(appId, 'Thing', 'missing')).toBe(false);
      expect(await store.findByUnique(appId, '_User', { field: 'username', value: 'nobody' })).toBeNull();
    });

    it('keeps classes apart', async () => {
      const store = context.store();
      const appId = newAppId();
      const thing = newObject({ title: 'x' });
      await store.insert(appId, 'Thing', thing);
      expect(await store.get(appId, 'Other', thing.objectId)).toBeNull();
    });

    it('keeps apps apart, so one username may exist once in each app', async () => {
      const store = context.store();
      const [first, second] = [newAppId(), newAppId()];
      const a = await insertUser(store, first, { username: 'ann' });
      const b = await insertUser(store, second, { username: 'ann' });
      expect(await usernameOwner(first, 'ann')).toBe(a.objectId);
      expect(await usernameOwner(second, 'ann')).toBe(b.objectId);
      expect(await store.get(second, '_User', a.objectId)).toBeNull();
      expect((await store.find(second, '_User', queryAll())).results.map((user) => user.objectId)).toEqual([b.objectId]);
    });

    it('refuses a second object with the same objectId', async () => {
      const store = context.store();
      const appId = newAppId();
      const thing = newObject({ title: 'first' });
      await store.insert(appId, 'Thing', thing);
      expect(await duplicateField(store.insert(appId, 'Thing', { ...thing, title: 'second' }))).toBe('objectId');
      expect(await store.get(appId, 'Thing', thing.objectId)).toEqual(thing);
    });

    it('finds an object by each of its unique keys', async () => {
      const store = context.store();
      const appId = newAppId();
      const user = await insertUser(store, appId, {
        username: 'ann',
        email: 'ann@example.com',
        mobilePhoneNumber: '+8613600000000',
        authData: { weibo: { uid: 'w1', access_token: 't' }, qq: { uid: 'q1' } },
      });
      for (const [field, value] of [
        ['username', 'ann'],
        ['email', 'ann@example.com'],
        ['mobilePhoneNumber', '+8613600000000'],
        ['authData.weibo.uid', 'w1'],
        ['authData.qq.uid', 'q1'],
      ] as const) {
        expect(await store.findByUnique(appId, '_User', { field, value })).toEqual(user);
      }
      expect(await store.findByUnique(appId, '_User', { field: 'email', value: 'ann' })).toBeNull();
    });

    it('deletes an object and frees its unique values', async () => {
      const store = context.store();
      const appId = newAppId();
      const user = await insertUser(store, appId, { username: 'ann', email: 'ann@example.com' });
      expect(await store.delete(appId, '_User', user.objectId)).toBe(true);
      expect(await store.get(appId, '_User', user.objectId)).toBeNull();
      expect(await usernameOwner(appId, 'ann')).toBeUndefined();
      expect(await store.delete(appId, '_User', user.objectId)).toBe(false);
      const next = await insertUser(store, appId, { username: 'ann', email: 'ann@example.com' });
      expect(await usernameOwner(appId, 'ann')).toBe(next.objectId);
    });
  });

  describe('unique values', () => {
    it('refuses an insert that takes a held value and leaves nothing behind', async () => {
      const store = context.store();
      const appId = newAppId();
      const ann = await insertUser(store, appId, { username: 'ann', email: 'shared@example.com' });
      // username `bob` is free and would be claimed before the email conflict is met.
      const bob = newObject({ username: 'bob', email: 'shared@example.com' });
      expect(await duplicateField(store.insert(appId, '_User', bob))).toBe('email');
      expect(await store.get(appId, '_User', bob.objectId)).toBeNull();
      expect(await usernameOwner(appId, 'bob')).toBeUndefined();
      expect((await store.findByUnique(appId, '_User', { field: 'email', value: 'shared@example.com' }))?.objectId).toBe(ann.objectId);
      await insertUser(store, appId, { username: 'bob' });
    });

    it('refuses an update that takes a held value and changes nothing', async () => {
      const store = context.store();
      const appId = newAppId();
      const ann = await insertUser(store, appId, { username: 'ann', email: 'ann@example.com' });
      const bob = await insertUser(store, appId, { username: 'bob', email: 'bob@example.com', city: 'Oslo' });
      const ops: FieldOp[] = [
        { op: 'set', path: ['city'], value: 'Paris' },
        { op: 'set', path: ['username'], value: 'carl' },
        { op: 'set', path: ['email'], value: 'ann@example.com' },
      ];
      expect(await duplicateField(store.update(appId, '_User', bob.objectId, ops, { updatedAt: later }))).toBe('email');
      expect(await store.get(appId, '_User', bob.objectId)).toEqual(bob);
      expect(await usernameOwner(appId, 'bob')).toBe(bob.objectId);
      expect(await usernameOwner(appId, 'carl')).toBeUndefined();
      expect((await store.findByUnique(appId, '_User', { field: 'email', value: 'ann@example.com' }))?.objectId).toBe(ann.objectId);
      expect((await store.findByUnique(appId, '_User', { field: 'email', value: 'bob@example.com' }))?.objectId).toBe(bob.objectId);
    });

    it('frees the old value on update so another object can take it', async () => {
      const store = context.store();
      const appId = newAppId();
      const ann = await insertUser(store, appId, { username: 'ann' });
      await store.update(appId, '_User', ann.objectId, [{ op: 'set', path: ['username'], value: 'anna' }], { updatedAt: later });
      expect(await usernameOwner(appId, 'anna')).toBe(ann.objectId);
      expect(await usernameOwner(appId, 'ann')).toBeUndefined();
      const other = await insertUser(store, appId, { username: 'ann' });
      expect(await usernameOwner(appId, 'ann')).toBe(other.objectId);
    });

    it('frees a nested unique value when its parent key is deleted', async () => {
      const store = context.store();
      const appId = newAppId();
      const ann = await insertUser(store, appId, { username: 'ann', authData: { weibo: { uid: 'w1' }, qq: { uid: 'q1' } } });
      const updated = await store.update(appId, '_User', ann.objectId, [{ op: 'delete', path: ['authData', 'weibo'] }], { updatedAt: later });
      expect(updated?.authData).toEqual({ qq: { uid: 'q1' } });
      expect(await store.findByUnique(appId, '_User', { field: 'authData.weibo.uid', value: 'w1' })).toBeNull();
      expect((await store.findByUnique(appId, '_User', { field: 'authData.qq.uid', value: 'q1' }))?.objectId).toBe(ann.objectId);
      await insertUser(store, appId, { username: 'bob', authData: { weibo: { uid: 'w1' } } });
    });

    it('lets an update keep its own values and an object reuse its own value under the same name', async () => {
      const store = context.store();
      const appId = newAppId();
      const ann = await insertUser(store, appId, { username: 'ann', email: 'ann@example.com' });
      const ops: FieldOp[] = [
        { op: 'set', path: ['username'], value: 'ann' },
        { op: 'set', path: ['nickname'], value: 'A' },
      ];
      const updated = await store.update(appId, '_User', ann.objectId, ops, { updatedAt: later });
      expect(updated).toMatchObject({ username: 'ann', nickname: 'A' });
      expect(await usernameOwner(appId, 'ann')).toBe(ann.objectId);
    });

    it('lets exactly one of 20 concurrent inserts through two instances take a username', async () => {
      const stores = [context.store(), await context.openAnother()] as const;
      const storeFor = (index: number): Store => stores[index % 2 === 0 ? 0 : 1];
      const appId = newAppId();
      const users = Array.from({ length: 20 }, (_, index) => newObject({ username: 'race', email: `racer${index}@example.com` }));
      const outcomes = await Promise.allSettled(users.map((user, index) => storeFor(index).insert(appId, '_User', user)));
      const winners = users.filter((_, index) => outcomes[index]?.status === 'fulfilled');
      expect(winners).toHaveLength(1);
      for (const outcome of outcomes) {
        if (outcome.status === 'rejected') {
          expect(outcome.reason).toBeInstanceOf(DuplicateValueError);
          expect((outcome.reason as DuplicateValueError).field).toBe('username');
        }
      }
      expect(await usernameOwner(appId, 'race')).toBe(winners[0]?.objectId);
      const { results } = await context.store().find(appId, '_User', queryAll());
      expect(results.map((user) => user.objectId)).toEqual([winners[0]?.objectId]);
      // The losers' other values were never claimed.
      expect(await stores[1].findByUnique(appId, '_User', { field: 'email', value: winners[0]?.email as string })).toEqual(winners[0]);
      const loser = users.find((user) => user !== winners[0]);
      expect(await context.store().findByUnique(appId, '_User', { field: 'email', value: loser?.email as string })).toBeNull();
    });

    it('lets exactly one of 10 concurrent updates through two instances take a username', async () => {
      const stores = [context.store(), await context.openAnother()] as const;
      const storeFor = (index: number): Store => stores[index % 2 === 0 ? 0 : 1];
      const appId = newAppId();
      const users: StoredObject[] = [];
      for (let index = 0; index < 10; index += 1) users.push(await insertUser(context.store(), appId, { username: `user${index}` }));
      const outcomes = await Promise.allSettled(
        users.map((user, index) =>
          storeFor(index).update(appId, '_User', user.objectId, [{ op: 'set', path: ['username'], value: 'taken' }], { updatedAt: later }),
        ),
      );
      const winners = users.filter((_, index) => outcomes[index]?.status === 'fulfilled');
      expect(winners).toHaveLength(1);
      expect(outcomes.filter((outcome) => outcome.status === 'rejected' && outcome.reason instanceof DuplicateValueError)).toHaveLength(9);
      expect(await usernameOwner(appId, 'taken')).toBe(winners[0]?.objectId);
      for (const [index, user] of users.entries()) {
        if (user !== winners[0]) expect(await usernameOwner(appId, `user${index}`)).toBe(user.objectId);
      }
    });
  });

  describe('updates', () => {
    const update = (appId: string, objectId: string, ops: FieldOp[], className = 'Thing'): Promise<StoredObject | null> =>
      context.store().update(appId, className, objectId, ops, { updatedAt: later });

    it('changes only the named fields and sets updatedAt', async () => {
      const store = context.store();
      const appId = newAppId();
      const thing = newObject({ title: 'old', keep: 'me', nested: { a: 1, b: 2 } });
      await store.insert(appId, 'Thing', thing);
      const updated = await update(appId, thing.objectId, [
        { op: 'set', path: ['title'], value: 'new' },
        { op: 'set', path: ['nested', 'b'], value: 3 },
      ]);
      const expected = { ...thing, title: 'new', nested: { a: 1, b: 3 }, updatedAt: later };
      expect(updated).toEqual(expected);
      expect(await store.get(appId, 'Thing', thing.objectId)).toEqual(expected);
    });

    it('deletes a field and increments numbers, a missing one starting from the amount', async () => {
      const store = context.store();
      const appId = newAppId();
      const thing = newObject({ gone: 1, score: 10 });
      await store.insert(appId, 'Thing', thing);
      const updated = await update(appId, thing.objectId, [
        { op: 'delete', path: ['gone'] },
        { op: 'increment', path: ['score'], amount: 5 },
        { op: 'increment', path: ['fresh'], amount: -2 },
      ]);
      expect(updated).toEqual({ ...thing, gone: undefined, score: 15, fresh: -2, updatedAt: later });
      expect(await store.get(appId, 'Thing', thing.objectId)).not.toHaveProperty('gone');
    });

    it.each([
      ['add appends, duplicates included', { op: 'add', path: ['tags'], objects: ['b', 'c'] }, ['a', 'b', 'b', 'c']],
      ['addUnique appends only new values, by deep equality', { op: 'addUnique', path: ['tags'], objects: ['b', 'c', 'c'] }, ['a', 'b', 'c']],
      ['remove drops every equal value', { op: 'remove', path: ['tags'], objects: ['a', 'x'] }, ['b']],
      ['add on a missing field starts from an empty array', { op: 'add', path: ['other'], objects: [1] }, ['a', 'b']],
    ] satisfies [string, FieldOp, unknown[]][])('%s', async (_title, op, tags) => {
      const store = context.store();
      const appId = newAppId();
      const thing = newObject({ tags: ['a', 'b'] });
      await store.insert(appId, 'Thing', thing);
      await update(appId, thing.objectId, [op]);
      const stored = await store.get(appId, 'Thing', thing.objectId);
      expect(stored?.tags).toEqual(tags);
      if (op.path[0] === 'other') expect(stored?.other).toEqual([1]);
    });

    it('treats objects in arrays as equal by value for addUnique and remove', async () => {
      const store = context.store();
      const appId = newAppId();
      const thing = newObject({ items: [{ a: 1, b: 2 }] });
      await store.insert(appId, 'Thing', thing);
      await update(appId, thing.objectId, [{ op: 'addUnique', path: ['items'], objects: [{ b: 2, a: 1 }, { a: 3 }] }]);
      expect((await store.get(appId, 'Thing', thing.objectId))?.items).toEqual([{ a: 1, b: 2 }, { a: 3 }]);
      await update(appId, thing.objectId, [{ op: 'remove', path: ['items'], objects: [{ b: 2, a: 1 }] }]);
      expect((await store.get(appId, 'Thing', thing.objectId))?.items).toEqual([{ a: 3 }]);
    });

    it('refuses a number or array op on a field of another type with code 111 and changes nothing', async () => {
      const store = context.store();
      const appId = newAppId();
      const thing = newObject({ title: 'text', tags: 'not-an-array' });
      await store.insert(appId, 'Thing', thing);
      for (const op of [
        { op: 'increment', path: ['title'], amount: 1 },
        { op: 'add', path: ['tags'], objects: ['x'] },
      ] satisfies FieldOp[]) {
        const error = await update(appId, thing.objectId, [{ op: 'set', path: ['first'], value: 1 }, op]).catch((reason: unknown) => reason);
        expect(error).toBeInstanceOf(HeraldError);
        expect((error as HeraldError).code).toBe(ErrorCode.invalidType);
      }
      expect(await store.get(appId, 'Thing', thing.objectId)).toEqual(thing);
    });

    it('applies an update only while an expect op holds, in the same atomic step', async () => {
      const store = context.store();
      const appId = newAppId();
      const user = await insertUser(store, appId, { username: `e${appId}`, email: 'old@example.com' });
      const verify: FieldOp[] = [
        { op: 'expect', path: ['email'], value: 'old@example.com' },
        { op: 'set', path: ['emailVerified'], value: true },
      ];
      await update(appId, user.objectId, [{ op: 'set', path: ['email'], value: 'new@example.com' }], '_User');
      const error = await update(appId, user.objectId, verify, '_User').catch((reason: unknown) => reason);
      expect(error).toEqual(new PreconditionFailedError('email'));
      expect((await store.get(appId, '_User', user.objectId))?.emailVerified).toBeUndefined();

      const absent = await update(appId, user.objectId, [{ op: 'expect', path: ['phone'], value: undefined }, { op: 'set', path: ['phone'], value: '1' }], '_User');
      expect(absent?.phone).toBe('1');
      await expect(update(appId, user.objectId, [{ op: 'expect', path: ['phone'], value: undefined }, { op: 'set', path: ['phone'], value: '2' }], '_User')).rejects.toThrow(
        new PreconditionFailedError('phone'),
      );
      expect((await store.get(appId, '_User', user.objectId))?.phone).toBe('1');
    });
  });
}
