import { beforeAll, describe, expect, it } from 'vitest';
import type { StoredObject } from '../../src/core/ports/object-store.ts';
import { parseWhere } from '../../src/query/parse-query.ts';
import { queryAll, type OrderKey, type Query } from '../../src/query/query.ts';
import { newAppId, newObject, type ConformanceContext } from './store-conformance-fixture.ts';

const day = (date: string): Record<string, string> => ({ __type: 'Date', iso: `${date}T00:00:00.000Z` });
const pointer = (objectId: string): Record<string, string> => ({ __type: 'Pointer', className: '_User', objectId });
const geoPoint = (latitude: number, longitude: number): Record<string, unknown> => ({ __type: 'GeoPoint', latitude, longitude });

/** Seeded in this order, so createdAt ascending is this order too. */
const things: Record<string, unknown>[] = [
  { name: 'ant', score: 1, group: 'a', tags: ['red', 'blue'], channels: ['news'], nested: { level: 1, label: 'one' }, when: day('2024-01-01'), owner: pointer('u1'), place: geoPoint(10, 20) },
  { name: 'bee', score: 5, group: 'a', tags: ['red'], channels: ['news', 'sport'], nested: { level: 2, label: 'two' }, when: day('2024-06-01') },
  { name: 'cat', score: 5, group: 'b', tags: [], channels: ['sport'], nested: { level: 3 }, when: day('2025-01-01'), owner: pointer('u2') },
  { name: 'Dog', score: 10, group: 'b', tags: ['blue', 'green'], nested: { level: 2, label: 'deux' } },
  // A string score is never compared with numbers.
  { name: 'eel', score: '7', group: 'c', nick: null },
  { name: 'fox', score: -3, group: 'c', tags: ['green'], channels: [], place: geoPoint(1, 2) },
];

const whereCases: [string, Record<string, unknown>, string[]][] = [
  ['equality on a string', { name: 'bee' }, ['bee']],
  ['equality on a number', { score: 5 }, ['bee', 'cat']],
  ['$eq', { score: { $eq: 10 } }, ['Dog']],
  ['$ne, which also matches a missing field', { channels: { $ne: 'news' } }, ['cat', 'Dog', 'eel', 'fox']],
  ['$ne on a number', { score: { $ne: 5 } }, ['ant', 'Dog', 'eel', 'fox']],
  ['$lt compares numbers with numbers only', { score: { $lt: 5 } }, ['ant', 'fox']],
  ['$lte', { score: { $lte: 5 } }, ['ant', 'bee', 'cat', 'fox']],
  ['$gt', { score: { $gt: 5 } }, ['Dog']],
  ['$gte', { score: { $gte: 5 } }, ['bee', 'cat', 'Dog']],
  ['$gt on a string compares strings only', { score: { $gt: '0' } }, ['eel']],
  ['a range of two operators', { score: { $gt: 0, $lt: 10 } }, ['ant', 'bee', 'cat']],
  ['$in', { group: { $in: ['a', 'c'] } }, ['ant', 'bee', 'eel', 'fox']],
  ['$in on an array field', { tags: { $in: ['green', 'purple'] } }, ['Dog', 'fox']],
  ['$nin, which also matches a missing field', { tags: { $nin: ['red'] } }, ['cat', 'Dog', 'eel', 'fox']],
  ['$all', { tags: { $all: ['red', 'blue'] } }, ['ant']],
  ['$exists: true, null counting as present', { nick: { $exists: true } }, ['eel']],
  ['$exists: false', { channels: { $exists: false } }, ['Dog', 'eel']],
  ['$regex', { name: { $regex: '^[a-c]' } }, ['ant', 'bee', 'cat']],
  ['$regex with $options i', { name: { $regex: '^d', $options: 'i' } }, ['Dog']],
  ['array contains by equality', { channels: 'news' }, ['ant', 'bee']],
  ['a nested path', { 'nested.level': 2 }, ['bee', 'Dog']],
  ['a nested path that is missing', { 'nested.label': { $exists: false } }, ['cat', 'eel', 'fox']],
  ['$or', { $or: [{ group: 'a' }, { score: { $gt: 5 } }] }, ['ant', 'bee', 'Dog']],
  ['$and', { $and: [{ tags: 'red' }, { tags: 'blue' }] }, ['ant']],
  ['fields and $or together', { group: 'a', $or: [{ score: 1 }, { score: 10 }] }, ['ant']],
  ['Date equality', { when: day('2024-06-01') }, ['bee']],
  ['Date $gt', { when: { $gt: day('2024-03-01') } }, ['bee', 'cat']],
  ['Date $lte', { when: { $lte: day('2024-06-01') } }, ['ant', 'bee']],
  ['Pointer equality by objectId', { owner: pointer('u1') }, ['ant']],
  ['GeoPoint equality', { place: geoPoint(1, 2) }, ['fox']],
  ['no condition', {}, ['ant', 'bee', 'cat', 'Dog', 'eel', 'fox']],
];

/** Queries: every operator, order, paging, keys, count and ACLs. */
export function describeQueryConformance(context: ConformanceContext): void {
  describe('queries', () => {
    const appId = newAppId();
    const seeded: StoredObject[] = [];

    beforeAll(async () => {
      for (const fields of things) {
        const thing = newObject(fields);
        await context.store().insert(appId, 'Thing', thing);
        seeded.push(thing);
      }
    });

    const find = (overrides: Partial<Query>): Promise<{ results: StoredObject[]; count?: number }> =>
      context.store().find(appId, 'Thing', queryAll({ limit: 1000, ...overrides }));
    const names = async (overrides: Partial<Query>): Promise<unknown[]> => (await find(overrides)).results.map((thing) => thing.name);
    const order = (...keys: string[]): OrderKey[] =>
      keys.map((key) => ({ path: key.replace(/^-/, '').split('.'), descending: key.startsWith('-') }));

    it.each(whereCases)('matches %s', async (_title, where, expected) => {
      expect(await names({ where: parseWhere(where), order: order('createdAt') })).toEqual(expected);
    });

    it('answers a catastrophic-backtracking $regex over long strings', async () => {
      const regexApp = newAppId();
      const long = { aThenBang: `${'a'.repeat(50_000)}!`, bangThenA: `!${'a'.repeat(50_000)}`, onlyX: 'x'.repeat(50_000) };
      for (const [label, text] of Object.entries(long)) await context.store().insert(regexApp, 'Thing', newObject({ label, text }));
      const labels = async (where: Record<string, unknown>): Promise<unknown[]> =>
        (await context.store().find(regexApp, 'Thing', queryAll({ where: parseWhere(where), order: order('createdAt') }))).results.map(
          (thing) => thing.label,
        );
      expect(await labels({ text: { $regex: '(a+)+$' } })).toEqual(['bangThenA']);
      expect(await labels({ text: { $regex: '(x+x+)+y' } })).toEqual([]);
      expect(await labels({ text: { $regex: '(.*a){20}' } })).toEqual(['aThenBang', 'bangThenA']);
    });

    it('compares createdAt with Date values and with ISO strings', async () => {
      const cat = seeded[2];
      expect(await names({ where: parseWhere({ createdAt: { $lt: { __type: 'Date', iso: cat?.createdAt } } }) })).toEqual(['ant', 'bee']);
      expect(await names({ where: parseWhere({ createdAt: { $gte: cat?.createdAt } }) })).toEqual(['cat', 'Dog', 'eel', 'fox']);
    });

    it('orders by createdAt ascending by default', async () => {
      expect(await names({})).toEqual(['ant', 'bee', 'cat', 'Dog', 'eel', 'fox']);
    });

    it('orders ascending and descending by code unit', async () => {
      expect(await names({ order: order('name') })).toEqual(['Dog', 'ant', 'bee', 'cat', 'eel', 'fox']);
      expect(await names({ order: order('-name') })).toEqual(['fox', 'eel', 'cat', 'bee', 'ant', 'Dog']);
    });

    it('orders by several keys, numbers before strings', async () => {
      expect(await names({ order: order('group', '-score') })).toEqual(['bee', 'ant', 'Dog', 'cat', 'eel', 'fox']);
      expect(await names({ order: order('-createdAt') })).toEqual(['fox', 'eel', 'Dog', 'cat', 'bee', 'ant']);
    });

    it('orders by a Date field and a nested path, missing values first', async () => {
      expect((await names({ order: order('-when') })).slice(0, 3)).toEqual(['cat', 'bee', 'ant']);
      expect(await names({ order: order('nested.level', 'name') })).toEqual(['eel', 'fox', 'ant', 'Dog', 'bee', 'cat']);
    });

    it('returns only the requested keys plus objectId, createdAt and updatedAt', async () => {
      const { results } = await find({ where: parseWhere({ name: 'ant' }), keys: ['name', 'nested.label', 'absent'] });
      const ant = seeded[0];
      expect(results).toEqual([{ objectId: ant?.objectId, createdAt: ant?.createdAt, updatedAt: ant?.updatedAt, name: 'ant', nested: { label: 'one' } }]);
    });

    it('counts every match whatever the page', async () => {
      expect(await find({ where: parseWhere({ group: 'a' }), count: true, limit: 0 })).toEqual({ results: [], count: 2 });
      const page = await find({ count: true, limit: 2, skip: 1 });
      expect(page.count).toBe(6);
      expect(page.results.map((thing) => thing.name)).toEqual(['bee', 'cat']);
      expect(await find({ limit: 1 })).not.toHaveProperty('count');
    });

    it('pages with skip and limit, visiting every object exactly once even with ties', async () => {
      const pagingApp = newAppId();
      const ids: string[] = [];
      for (let index = 0; index < 23; index += 1) {
        const thing = newObject({ bucket: index % 4 });
        ids.push(thing.objectId);
        await context.store().insert(pagingApp, 'Thing', thing);
      }
      for (const orderKeys of [[], order('bucket'), order('-bucket')]) {
        const visited: string[] = [];
        for (let skip = 0; skip < 30; skip += 5) {
          const { results } = await context.store().find(pagingApp, 'Thing', queryAll({ order: orderKeys, skip, limit: 5 }));
          expect(results.length).toBe(Math.max(0, Math.min(5, 23 - skip)));
          visited.push(...results.map((thing) => thing.objectId));
        }
        expect(visited).toHaveLength(23);
        expect(new Set(visited)).toEqual(new Set(ids));
      }
    });

    it('answers only objects that one of readableBy may read under their ACL', async () => {
      const aclApp = newAppId();
      const acls: Record<string, unknown> = {
        public: { '*': { read: true } },
        mine: { u1: { read: true, write: true } },
        theirs: { u2: { read: true } },
        writeOnly: { '*': { write: true } },
        open: undefined,
      };
      for (const [name, ACL] of Object.entries(acls)) {
        await context.store().insert(aclApp, 'Thing', newObject(ACL === undefined ? { name } : { name, ACL }));
      }
      const readable = async (readableBy: string[] | null): Promise<unknown[]> =>
        (await context.store().find(aclApp, 'Thing', queryAll({ readableBy }))).results.map((thing) => thing.name);
      expect(await readable(null)).toEqual(['public', 'mine', 'theirs', 'writeOnly', 'open']);
      expect(await readable(['*'])).toEqual(['public', 'open']);
      expect(await readable(['*', 'u1'])).toEqual(['public', 'mine', 'open']);
      expect(await readable(['u2'])).toEqual(['theirs', 'open']);
      const counted = await context.store().find(aclApp, 'Thing', queryAll({ readableBy: ['*'], count: true, limit: 0 }));
      expect(counted.count).toBe(2);
    });

    it('finds nothing in another app', async () => {
      expect((await context.store().find(newAppId(), 'Thing', queryAll({ count: true }))).count).toBe(0);
    });
  });
}
