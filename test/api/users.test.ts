import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestHerald, type TestHerald } from '../support/test-herald.ts';

let h: TestHerald;
beforeAll(async () => {
  h = await startTestHerald({ settings: { classPermissions: { _User: { find: false } } } });
});
afterAll(() => h.close());

let counter = 0;
async function newUser(extra: Record<string, unknown> = {}) {
  const n = `${Date.now().toString(36)}${counter++}`;
  const res = await h.request('POST', '/1.1/users', { body: { username: `carol${n}`, password: 'pw-1', ...extra } });
  expect(res.status).toBe(201);
  return { username: `carol${n}`, objectId: res.body.objectId as string, sessionToken: res.body.sessionToken as string };
}

describe('reading users', () => {
  it('answers /users/me for the session token, and 206 without one', async () => {
    const user = await newUser();
    const me = await h.request('GET', '/1.1/users/me', { session: user.sessionToken });
    expect(me.status).toBe(200);
    expect(me.body).toMatchObject({ objectId: user.objectId, username: user.username, sessionToken: user.sessionToken });
    const none = await h.request('GET', '/1.1/users/me');
    expect(none.status).toBe(403);
    expect(none.body.code).toBe(206);
  });

  it('answers GET /users/<id> without the session token of someone else, and 211 for unknown ids', async () => {
    const user = await newUser({ bio: 'hi' });
    const res = await h.request('GET', `/1.1/users/${user.objectId}`);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ objectId: user.objectId, username: user.username, bio: 'hi' });
    expect(res.body).not.toHaveProperty('sessionToken');
    for (const id of ['000000000000000000000000', 'bad id!', 'x'.repeat(100)]) {
      const missing = await h.request('GET', `/1.1/users/${encodeURIComponent(id)}`);
      expect(missing.status).toBe(400);
      expect(missing.body.code).toBe(211);
    }
  });
});

describe('updating users', () => {
  it('updates only the given fields with the user session, answering {updatedAt}', async () => {
    const user = await newUser({ city: 'Oslo', visits: 1, tags: ['a'] });
    const res = await h.request('PUT', `/1.1/users/${user.objectId}`, {
      session: user.sessionToken,
      body: { city: 'Bergen', visits: { __op: 'Increment', amount: 2 }, tags: { __op: 'AddUnique', objects: ['a', 'b'] } },
    });
    expect(res.status).toBe(200);
    expect(Object.keys(res.body)).toEqual(['updatedAt']);
    const me = await h.request('GET', '/1.1/users/me', { session: user.sessionToken });
    expect(me.body).toMatchObject({ city: 'Bergen', visits: 3, tags: ['a', 'b'], username: user.username });
    expect(me.body.updatedAt).toBe(res.body.updatedAt);
  });

  it('refuses updates without a session (206) or with another user session (403), changing nothing', async () => {
    const user = await newUser({ city: 'Oslo' });
    const other = await newUser();
    const anonymous = await h.request('PUT', `/1.1/users/${user.objectId}`, { body: { city: 'X' } });
    expect(anonymous.status).toBe(403);
    expect(anonymous.body.code).toBe(206);
    const foreign = await h.request('PUT', `/1.1/users/${user.objectId}`, { session: other.sessionToken, body: { city: 'X' } });
    expect(foreign.status).toBe(403);
    expect(foreign.body.code).toBe(403);
    expect((await h.request('GET', `/1.1/users/${user.objectId}`)).body.city).toBe('Oslo');
  });

  it('lets the master key update any user', async () => {
    const user = await newUser();
    const res = await h.request('PUT', `/1.1/users/${user.objectId}`, { master: true, body: { vip: true, emailVerified: true } });
    expect(res.status).toBe(200);
    expect((await h.request('GET', '/1.1/users/me', { session: user.sessionToken })).body).toMatchObject({ vip: true, emailVerified: true });
  });

  it('re-checks unique fields on update and leaves the user unchanged on conflict', async () => {
    const a = await newUser({ email: `a${Date.now()}@example.com` });
    const b = await newUser({ city: 'Rome' });
    const aMe = await h.request('GET', '/1.1/users/me', { session: a.sessionToken });
    const clash = await h.request('PUT', `/1.1/users/${b.objectId}`, { session: b.sessionToken, body: { email: aMe.body.email, city: 'Paris' } });
    expect(clash.body.code).toBe(203);
    const byName = await h.request('PUT', `/1.1/users/${b.objectId}`, { session: b.sessionToken, body: { username: a.username } });
    expect(byName.body.code).toBe(202);
    const bMe = await h.request('GET', '/1.1/users/me', { session: b.sessionToken });
    expect(bMe.body.city).toBe('Rome');
    expect(bMe.body.username).toBe(b.username);
    expect(bMe.body).not.toHaveProperty('email');
    const rename = await h.request('PUT', `/1.1/users/${b.objectId}`, { session: b.sessionToken, body: { username: `${b.username}-new` } });
    expect(rename.status).toBe(200);
    expect((await h.request('POST', '/1.1/login', { body: { username: `${b.username}-new`, password: 'pw-1' } })).status).toBe(200);
  });

  it.each([
    ['a reserved field', { _x: 1 }, 105],
    ['sessionToken', { sessionToken: 'mine' }, 105],
    ['an invalid ACL', { ACL: [] }, 123],
    ['a malformed email', { email: 'x@' }, 125],
    ['Increment on a string', { city: { __op: 'Increment' } }, 111],
  ])('refuses %s in an update', async (_name, body, code) => {
    const user = await newUser({ city: 'Oslo' });
    const res = await h.request('PUT', `/1.1/users/${user.objectId}`, { session: user.sessionToken, body });
    expect(res.status).toBe(400);
    expect(res.body.code).toBe(code);
    expect((await h.request('GET', '/1.1/users/me', { session: user.sessionToken })).body.city).toBe('Oslo');
  });

  it('enforces the ACL for ordinary keys and lets the master key bypass it', async () => {
    const user = await newUser();
    const hide = await h.request('PUT', `/1.1/users/${user.objectId}`, { session: user.sessionToken, body: { ACL: { [user.objectId]: { read: true } } } });
    expect(hide.status).toBe(200);
    expect((await h.request('GET', `/1.1/users/${user.objectId}`)).body.code).toBe(211);
    expect((await h.request('GET', `/1.1/users/${user.objectId}`, { session: user.sessionToken })).status).toBe(200);
    expect((await h.request('GET', `/1.1/users/${user.objectId}`, { master: true })).status).toBe(200);
    const write = await h.request('PUT', `/1.1/users/${user.objectId}`, { session: user.sessionToken, body: { city: 'Nope' } });
    expect(write.status).toBe(403);
    expect((await h.request('PUT', `/1.1/users/${user.objectId}`, { master: true, body: { city: 'Yes' } })).status).toBe(200);
  });
});

describe('session tokens', () => {
  it('refreshSessionToken issues a new token and the old one gets 403', async () => {
    const user = await newUser();
    const res = await h.request('PUT', `/1.1/users/${user.objectId}/refreshSessionToken`, { session: user.sessionToken });
    expect(res.status).toBe(200);
    expect(res.body.sessionToken).not.toBe(user.sessionToken);
    expect(res.body).toMatchObject({ objectId: user.objectId, username: user.username });
    const stale = await h.request('GET', '/1.1/users/me', { session: user.sessionToken });
    expect(stale.status).toBe(403);
    expect((await h.request('GET', '/1.1/users/me', { session: res.body.sessionToken })).status).toBe(200);
    const byMaster = await h.request('PUT', `/1.1/users/${user.objectId}/refreshSessionToken`, { master: true });
    expect(byMaster.body.sessionToken).not.toBe(res.body.sessionToken);
  });

  it('updatePassword needs the old password and keeps the token when re-login is not forced', async () => {
    const user = await newUser();
    const wrong = await h.request('PUT', `/1.1/users/${user.objectId}/updatePassword`, { session: user.sessionToken, body: { old_password: 'nope', new_password: 'pw-2' } });
    expect(wrong.body.code).toBe(210);
    const ok = await h.request('PUT', `/1.1/users/${user.objectId}/updatePassword`, { session: user.sessionToken, body: { old_password: 'pw-1', new_password: 'pw-2' } });
    expect(ok.status).toBe(200);
    expect(ok.body).toEqual({ updatedAt: expect.any(String), objectId: user.objectId, sessionToken: user.sessionToken });
    expect((await h.request('POST', '/1.1/login', { body: { username: user.username, password: 'pw-1' } })).body.code).toBe(210);
    expect((await h.request('POST', '/1.1/login', { body: { username: user.username, password: 'pw-2' } })).status).toBe(200);
  });
});

describe('deleting users', () => {
  it('deletes with the user session, answering {}, and frees the username', async () => {
    const user = await newUser();
    const other = await newUser();
    expect((await h.request('DELETE', `/1.1/users/${user.objectId}`, { session: other.sessionToken })).status).toBe(403);
    const res = await h.request('DELETE', `/1.1/users/${user.objectId}`, { session: user.sessionToken });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({});
    expect((await h.request('GET', `/1.1/users/${user.objectId}`)).body.code).toBe(211);
    expect((await h.request('POST', '/1.1/users', { body: { username: user.username, password: 'p' } })).status).toBe(201);
  });
});

describe('querying users', () => {
  it('is closed to ordinary keys by default', async () => {
    const res = await h.request('GET', '/1.1/users');
    expect(res.status).toBe(403);
    expect(res.body.code).toBe(403);
  });

  it('supports where, order, limit, skip, keys and count with the master key', async () => {
    const group = `g${Date.now()}`;
    const made = [];
    for (let i = 0; i < 5; i++) made.push(await newUser({ group, rank: i }));
    const where = encodeURIComponent(JSON.stringify({ group, rank: { $gte: 1 } }));
    const res = await h.request('GET', `/1.1/users?where=${where}&order=-rank&limit=2&skip=1&keys=rank&count=1`, { master: true });
    expect(res.status).toBe(200);
    expect(res.body.count).toBe(4);
    expect(res.body.results.map((u: { rank: number }) => u.rank)).toEqual([3, 2]);
    expect(Object.keys(res.body.results[0]).sort()).toEqual(['createdAt', 'objectId', 'rank', 'updatedAt']);
    for (const result of res.body.results) expect(result).not.toHaveProperty('sessionToken');
  });

  it.each([
    ['where that is not JSON', 'where=%7Bnope', 107],
    ['an unknown operator', `where=${encodeURIComponent('{"rank":{"$bogus":1}}')}`, 1],
    ['a negative limit', 'limit=-1', 1],
    ['a query on the password hash', `where=${encodeURIComponent('{"_hashedPassword":{"$exists":true}}')}`, 105],
    ['a query on session tokens', `where=${encodeURIComponent('{"sessionToken":{"$regex":"^a"}}')}`, 105],
  ])('refuses %s', async (_name, query, code) => {
    const res = await h.request('GET', `/1.1/users?${query}`, { master: true });
    expect(res.status).toBe(400);
    expect(res.body.code).toBe(code);
  });
});
