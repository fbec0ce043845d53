import { describe, expect, it } from 'vitest';
import type { StoredObject } from '../../src/core/ports/object-store.ts';
import { BoundedHeap } from '../../src/query/bounded-heap.ts';
import { parseWhere } from '../../src/query/parse-query.ts';
import { queryAll, type Query } from '../../src/query/query.ts';
import { runQuery } from '../../src/query/run-query.ts';

const at = (second: number): string => new Date(Date.UTC(2025, 0, 1, 0, 0, second)).toISOString();

function thing(id: number, fields: Record<string, unknown> = {}): StoredObject {
  return { objectId: `id${String(id).padStart(4, '0')}`, createdAt: at(id), updatedAt: at(id), ...fields };
}

/** A deterministic pseudo-random sequence, so failures reproduce. */
function sequence(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state * 1_103_515_245 + 12_345) % 2_147_483_648;
    return state / 2_147_483_648;
  };
}

async function* asAsync<T>(items: Iterable<T>): AsyncGenerator<T> {
  for (const item of items) yield await Promise.resolve(item);
}

const ids = (result: { results: StoredObject[] }): string[] => result.results.map((object) => object.objectId);

describe('runQuery', () => {
  it('orders by createdAt, then objectId, by default', async () => {
    const objects = [thing(3), { ...thing(9), createdAt: at(1) }, thing(1), thing(2)];
    expect(ids(await runQuery(objects, queryAll()))).toEqual(['id0001', 'id0009', 'id0002', 'id0003']);
  });

  it('pages like a full sort would, for random data, orders and pages', async () => {
    const random = sequence(7);
    const objects = Array.from({ length: 500 }, (_, index) => thing(index, { score: Math.floor(random() * 10), group: random() < 0.5 ? 'a' : 'b' }));
    for (let round = 0; round < 30; round += 1) {
      const descending = random() < 0.5;
      const skip = Math.floor(random() * 520);
      const limit = Math.floor(random() * 60);
      const query = queryAll({ order: [{ path: ['score'], descending }], skip, limit, where: parseWhere({ group: 'a' }), count: true });
      const matching = objects.filter((object) => object.group === 'a');
      const expected = [...matching]
        .sort((a, b) => (Number(a.score) - Number(b.score)) * (descending ? -1 : 1) || a.objectId.localeCompare(b.objectId))
        .slice(skip, skip + limit);
      const result = await runQuery(objects, query);
      expect(ids(result)).toEqual(expected.map((object) => object.objectId));
      expect(result.count).toBe(matching.length);
    }
  });

  it('answers the same for an async source', async () => {
    const objects = Array.from({ length: 50 }, (_, index) => thing(49 - index, { score: index % 3 }));
    const query = queryAll({ order: [{ path: ['score'], descending: true }], skip: 5, limit: 10, count: true });
    expect(await runQuery(asAsync(objects), query)).toEqual(await runQuery(objects, query));
  });

  it('drains a synchronous source before the promise settles', () => {
    let drained = false;
    function* source(): Generator<StoredObject> {
      yield thing(1);
      drained = true;
    }
    const pending = runQuery(source(), queryAll());
    expect(drained).toBe(true);
    return pending;
  });

  it('filters by where and readableBy, counting only what passes both', async () => {
    const objects = [
      thing(1, { kind: 'x', ACL: { '*': { read: true } } }),
      thing(2, { kind: 'x', ACL: { u1: { read: true } } }),
      thing(3, { kind: 'y' }),
      thing(4, { kind: 'x' }),
    ];
    const query: Query = queryAll({ where: parseWhere({ kind: 'x' }), readableBy: ['*'], count: true });
    expect(await runQuery(objects, query)).toEqual({ results: [objects[0], objects[3]], count: 2 });
  });

  it('answers only a count with limit 0, and nothing past the end', async () => {
    const objects = [thing(1), thing(2), thing(3)];
    expect(await runQuery(objects, queryAll({ limit: 0, count: true }))).toEqual({ results: [], count: 3 });
    expect(await runQuery(objects, queryAll({ skip: 3 }))).toEqual({ results: [] });
  });

  it('projects keys, merging nested ones, without changing the source', async () => {
    const source = thing(1, { name: 'n', secret: 's', authData: { weibo: { uid: 'w' }, qq: { uid: 'q' }, apple: { uid: 'a' } } });
    const copy = structuredClone(source);
    const { results } = await runQuery([source], queryAll({ keys: ['name', 'authData.weibo', 'authData.qq.uid', 'missing.deep'] }));
    expect(results).toEqual([
      { objectId: 'id0001', createdAt: at(1), updatedAt: at(1), name: 'n', authData: { weibo: { uid: 'w' }, qq: { uid: 'q' } } },
    ]);
    expect(source).toEqual(copy);
  });

  it('orders by a field left out of keys', async () => {
    const objects = [thing(1, { score: 2, name: 'b' }), thing(2, { score: 1, name: 'a' })];
    const { results } = await runQuery(objects, queryAll({ keys: ['name'], order: [{ path: ['score'], descending: false }] }));
    expect(results.map((object) => object.name)).toEqual(['a', 'b']);
  });
});

describe('BoundedHeap', () => {
  it('keeps only the smallest items up to its capacity', () => {
    const random = sequence(3);
    const values = Array.from({ length: 1000 }, () => Math.floor(random() * 10_000));
    const heap = new BoundedHeap<number>(25, (a, b) => a - b);
    for (const value of values) heap.offer(value);
    expect(heap.sorted()).toEqual([...values].sort((a, b) => a - b).slice(0, 25));
  });

  it('keeps nothing with capacity 0', () => {
    const heap = new BoundedHeap<number>(0, (a, b) => a - b);
    heap.offer(1);
    expect(heap.accepts(0)).toBe(false);
    expect(heap.sorted()).toEqual([]);
  });
});
