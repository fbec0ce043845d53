import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { memoryLogger } from '../support/memory-logger.ts';
import { idOf, initSdk, type Sdk, type SdkUser } from '../support/sdk-client.ts';
import { servedRequests } from '../support/served-requests.ts';
import { startTestHerald, type TestHerald } from '../support/test-herald.ts';

/**
 * `AV.Query('_User')` of the hosted service's JavaScript SDK against Herald,
 * in an app that opens the find permission on `_User` (so the app key may
 * query, as a shipped client does), each answer compared with Herald's store.
 */
let h: TestHerald;
let AV: Sdk;
const log = memoryLogger('debug');
/**
 * The users of this file, all in one `group`, by username suffix. Digits
 * only after the `g`, so that a letter a condition looks for (`contains`)
 * is never in the group's part of a username.
 */
const group = `g${Date.now()}${process.pid}`;
const ids: Record<string, string> = {};

beforeAll(async () => {
  h = await startTestHerald({ logger: log.logger, settings: { classPermissions: { _User: { find: true } } } });
  AV = initSdk(h);
  const people = [
    { name: 'ada', score: 90, born: '1990-05-01T00:00:00.000Z' },
    { name: 'bob', score: 40, born: '1985-01-15T00:00:00.000Z' },
    { name: 'cyd', score: 75, born: '2001-09-30T00:00:00.000Z' },
    { name: 'cat', score: 60, born: '1999-12-31T00:00:00.000Z' },
  ];
  for (const person of people) {
    const user = new AV.User();
    user.setUsername(`${group}-${person.name}`);
    user.setPassword('query-pass-1');
    user.set({ group, score: person.score, born: new Date(person.born) });
    await user.signUp();
    ids[person.name] = idOf(user);
  }
  await AV.User.logOut();
});
afterAll(async () => {
  await h?.close();
});
beforeEach(async () => {
  await AV.User.logOut();
});

const inGroup = () => new AV.Query(AV.User).equalTo('group', group);
const names = (users: SdkUser[]) => users.map((user) => String(user.get('username')).slice(group.length + 1));

describe('conditions', () => {
  it('are answered through GET /1.1/classes/_User with the users Herald matches', async () => {
    const before = log.lines.length;
    expect(names(await inGroup().ascending('username').find())).toEqual(['ada', 'bob', 'cat', 'cyd']);
    const served = servedRequests(log.lines.slice(before));
    expect(served.map((r) => [r.method, r.path, r.status])).toEqual([['GET', '/1.1/classes/_User', 200]]);
    expect(JSON.parse(served[0]?.query.get('where') ?? '')).toEqual({ group });
  });

  it.each([
    ['greaterThan on a number', () => inGroup().greaterThan('score', 70), ['ada', 'cyd']],
    ['lessThanOrEqualTo on a number', () => inGroup().lessThanOrEqualTo('score', 60), ['bob', 'cat']],
    ['a range of dates', () => inGroup().greaterThanOrEqualTo('born', new Date('1990-01-01T00:00:00Z')).lessThan('born', new Date('2000-01-01T00:00:00Z')), ['ada', 'cat']],
    ['containedIn', () => inGroup().containedIn('username', [`${group}-bob`, `${group}-cyd`, 'nobody']), ['bob', 'cyd']],
    ['notContainedIn', () => inGroup().notContainedIn('username', [`${group}-bob`]), ['ada', 'cat', 'cyd']],
    ['notEqualTo', () => inGroup().notEqualTo('score', 40), ['ada', 'cat', 'cyd']],
    ['startsWith', () => inGroup().startsWith('username', `${group}-c`), ['cat', 'cyd']],
    ['contains', () => inGroup().contains('username', 'y'), ['cyd']],
    ['exists', () => inGroup().exists('score'), ['ada', 'bob', 'cat', 'cyd']],
    ['doesNotExist', () => inGroup().doesNotExist('score'), []],
    ['or', () => AV.Query.or(inGroup().equalTo('score', 40), inGroup().equalTo('score', 90)), ['ada', 'bob']],
    ['and', () => AV.Query.and(inGroup().greaterThan('score', 50), inGroup().lessThan('score', 80)), ['cat', 'cyd']],
  ])('%s', async (_name, query, expected) => {
    expect(names(await query().find()).sort()).toEqual(expected);
  });
});

describe('paging, order, keys and counts', () => {
  it('orders descending, skips and limits as Herald does', async () => {
    expect(names(await inGroup().descending('score').skip(1).limit(2).find())).toEqual(['cyd', 'cat']);
    expect(names(await inGroup().addAscending('born').find())).toEqual(['bob', 'ada', 'cat', 'cyd']);
  });

  it('answers only the selected keys (with objectId and timestamps)', async () => {
    const [found] = await inGroup().equalTo('score', 90).select('username').find();
    expect(found?.toJSON()).toEqual({ objectId: ids.ada, username: `${group}-ada`, createdAt: expect.any(String), updatedAt: expect.any(String) });
  });

  it('counts with count, findAndCount and first as the store does', async () => {
    const stored = await h.request('GET', `/1.1/users?where=${encodeURIComponent(JSON.stringify({ group }))}&count=1&limit=0`, { master: true });
    expect(stored.body.count).toBe(4);
    expect(await inGroup().count()).toBe(4);
    const [users, count] = await inGroup().greaterThan('score', 50).findAndCount();
    expect(count).toBe(3);
    expect(users).toHaveLength(3);
    expect((await inGroup().ascending('score').first())?.id).toBe(ids.bob);
  });

  it('sends a query too long for a URL as a GET inside POST /1.1/batch, answered the same', async () => {
    const decoys = Array.from({ length: 150 }, (_, i) => `${group}-decoy-${i}`);
    const before = log.lines.length;
    const found = await inGroup().containedIn('username', [...decoys, `${group}-ada`, `${group}-cat`]).find();
    expect(servedRequests(log.lines.slice(before)).map((r) => [r.method, r.path, r.status])).toEqual([['POST', '/1.1/batch', 200]]);
    expect(names(found).sort()).toEqual(['ada', 'cat']);
  });

  it('gets one user by id through GET /1.1/classes/_User/<id>', async () => {
    const user = await new AV.Query(AV.User).get(ids.cyd ?? '');
    expect(user.get('score')).toBe(75);
    expect(user.get('born')).toEqual(new Date('2001-09-30T00:00:00.000Z'));
  });
});

describe('what a query shows', () => {
  it('leaves out users whose ACL the caller may not read; the master key sees them', async () => {
    const hidden = new AV.User();
    hidden.setUsername(`${group}-zed`);
    hidden.setPassword('query-pass-1');
    hidden.set({ group, score: 10 });
    await hidden.signUp();
    const acl = new AV.ACL();
    acl.setReadAccess(hidden, true);
    acl.setWriteAccess(hidden, true);
    hidden.setACL(acl);
    await hidden.save();
    await AV.User.logOut();

    expect(names(await inGroup().lessThan('score', 50).find()).sort()).toEqual(['bob']);
    expect(names(await inGroup().lessThan('score', 50).find({ useMasterKey: true })).sort()).toEqual(['bob', 'zed']);
    await hidden.destroy({ useMasterKey: true });
  });

  it('never hands out another user\'s session token or a password', async () => {
    const found = await inGroup().find();
    for (const user of found) {
      expect(user.getSessionToken()).toBeUndefined();
      expect(user.toJSON()).not.toHaveProperty('password');
    }
  });
});
