import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { maxNestingDepth } from '../../src/query/json-nesting.ts';
import { maxWhereValues } from '../../src/query/parse-query.ts';
import { startTestHerald, type TestHerald } from '../support/test-herald.ts';

let h: TestHerald;
beforeAll(async () => {
  h = await startTestHerald();
});
afterAll(() => h.close());

const tooDeep = { code: 107, error: `where nests deeper than ${maxNestingDepth} levels` };
const queryPaths = ['/1.1/installations', '/1.1/classes/_Installation', '/1.1/users', '/1.1/classes/_User', '/1.1/notifications'];

/**
 * A `where` whose value is `levels` arrays deep, as JSON text. A URL can
 * carry about 5,000 levels of it before the server's 16 KiB header limit;
 * a batch's params carry any depth, since the text is a string there.
 */
function deepArrays(levels: number, inOperator = false): string {
  const value = `${'['.repeat(levels)}1${']'.repeat(levels)}`;
  return inOperator ? `{"a":{"$in":${value}}}` : `{"a":${value}}`;
}

/** JSON text in a URL: only what a URL cannot hold as it is gets escaped, so that the nesting fits. */
function inUrl(json: string): string {
  return json.replace(/["{}$%#&+ ]/g, (character) => encodeURIComponent(character));
}

async function expectHealthy(): Promise<void> {
  expect((await fetch(`${h.baseUrl}/healthz`)).status).toBe(200);
  const plain = await h.request('GET', `/1.1/installations?where=${encodeURIComponent(JSON.stringify({ deviceType: 'ios' }))}`, { master: true });
  expect(plain.status).toBe(200);
}

describe('a where nested deeper than the limit', () => {
  it.each(queryPaths)('is refused on GET %s with 107, for the app key and the master key alike', async (path) => {
    for (const where of [deepArrays(5_000), deepArrays(5_000, true)]) {
      for (const master of [false, true]) {
        const res = await h.request('GET', `${path}?where=${inUrl(where)}`, { master });
        expect({ status: res.status, body: res.body }).toEqual({ status: 400, body: tooDeep });
      }
    }
    await expectHealthy();
  });

  it('is refused in a batch, for that request alone, however deep', async () => {
    // Deep objects are slow to decode (JSON.parse takes ~90 ms for 100,000 levels), so they are 20,000 deep here; arrays go to 100,000.
    const wheres = [
      deepArrays(100_000),
      deepArrays(100_000, true),
      `${'{"a":'.repeat(20_000)}1${'}'.repeat(20_000)}`,
      `${'{"$or":['.repeat(10_000)}{}${']}'.repeat(10_000)}`,
    ];
    const paths = ['/1.1/installations', '/1.1/classes/_Installation', '/1.1/users', '/1.1/classes/_User'];
    const plain = { method: 'GET', path: '/1.1/installations', params: { where: { deviceType: 'ios' } } };
    for (const where of wheres) {
      // One deep request a batch: the body limit is 1 MiB.
      for (const path of paths) {
        for (const master of [false, true]) {
          const res = await h.request('POST', '/1.1/batch', { master, body: { requests: [{ method: 'GET', path, params: { where } }] } });
          expect({ status: res.status, body: res.body }).toEqual({ status: 200, body: [{ error: tooDeep }] });
        }
      }
      const beside = await h.request('POST', '/1.1/batch', { master: true, body: { requests: [{ method: 'GET', path: paths[0], params: { where } }, plain] } });
      expect(beside.body).toEqual([{ error: tooDeep }, { success: { results: [] } }]);
    }
    await expectHealthy();
  });

  it('is taken at the limit, where the query answers as usual', async () => {
    const atLimit = `{"a":${'['.repeat(maxNestingDepth - 1)}1${']'.repeat(maxNestingDepth - 1)}}`;
    expect(await h.request('GET', `/1.1/installations?where=${inUrl(atLimit)}`, { master: true })).toMatchObject({ status: 200, body: { results: [] } });
  });
});

describe('a where holding more values than the limit', () => {
  it('is refused with code 1 (a batch can carry one; a URL is too short to)', async () => {
    const where = JSON.stringify({ objectId: { $in: Array.from({ length: maxWhereValues }, (_, n) => `i${n}`) } });
    const error = { code: 1, error: `where holds more than ${maxWhereValues} values: split the query` };
    const batch = await h.request('POST', '/1.1/batch', { master: true, body: { requests: [{ method: 'GET', path: '/1.1/installations', params: { where } }] } });
    expect(batch.body).toEqual([{ error }]);
    await expectHealthy();
  });
});
