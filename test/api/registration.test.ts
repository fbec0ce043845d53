import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestHerald, type TestHerald } from '../support/test-herald.ts';

let h: TestHerald;
beforeAll(async () => {
  h = await startTestHerald();
});
afterAll(() => h.close());

let counter = 0;
const unique = (prefix: string) => `${prefix}${Date.now().toString(36)}${counter++}`;

async function userCount(): Promise<number> {
  const res = await h.request('GET', '/1.1/users?count=1&limit=0', { master: true });
  expect(res.status).toBe(200);
  return res.body.count as number;
}

describe('registration with username and password', () => {
  it('answers 201 with Location, objectId, createdAt and sessionToken, and keeps custom fields', async () => {
    const username = unique('alice');
    const res = await h.request('POST', '/1.1/users', { body: { username, password: 'secret-1', phone: '555', score: 3, tags: ['a'] } });
    expect(res.status).toBe(201);
    expect(Object.keys(res.body).sort()).toEqual(['createdAt', 'objectId', 'sessionToken']);
    expect(res.headers.get('location')).toBe(`${h.baseUrl}/1.1/users/${res.body.objectId}`);
    expect(res.body.createdAt).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    expect(res.body.sessionToken.length).toBeGreaterThanOrEqual(26);

    const me = await h.request('GET', '/1.1/users/me', { session: res.body.sessionToken });
    expect(me.status).toBe(200);
    expect(me.body).toMatchObject({ username, phone: '555', score: 3, tags: ['a'], objectId: res.body.objectId });
    expect(me.body).not.toHaveProperty('password');
    expect(JSON.stringify(me.body)).not.toContain('argon2');
  });

  it.each([
    ['username', { password: 'p' }, 200],
    ['password', { username: 'someone' }, 201],
    ['blank username', { username: '   ', password: 'p' }, 217],
    ['blank password', { username: 'someone2', password: '' }, 218],
    ['non-string username', { username: 42, password: 'p' }, 111],
    ['non-string password', { username: 'someone3', password: ['p'] }, 111],
    ['malformed email', { username: 'someone4', password: 'p', email: 'not-an-email' }, 125],
    ['malformed mobile number', { username: 'someone5', password: 'p', mobilePhoneNumber: '12ab' }, 127],
    ['reserved field name', { username: 'someone6', password: 'p', _secret: 1 }, 105],
    ['field name with a dollar', { username: 'someone7', password: 'p', 'a$b': 1 }, 105],
    ['service-owned field', { username: 'someone8', password: 'p', objectId: 'abc' }, 105],
    ['emailVerified without master key', { username: 'someone9', password: 'p', emailVerified: true }, 403],
    ['invalid ACL', { username: 'someone10', password: 'p', ACL: { '*': { read: 'yes' } } }, 123],
    ['unknown __op', { username: 'someone11', password: 'p', n: { __op: 'Explode' } }, 1],
  ])('refuses a missing or bad %s and creates nothing', async (_name, body, code) => {
    const before = await userCount();
    const res = await h.request('POST', '/1.1/users', { body });
    expect(res.body.code).toBe(code);
    expect(res.status).toBeGreaterThanOrEqual(400);
    expect(res.status).toBeLessThan(500);
    expect(typeof res.body.error).toBe('string');
    expect(await userCount()).toBe(before);
  });

  it.each([
    ['a non-JSON body', '{"username": "x",', 107, 400],
    ['a JSON array', '[1,2]', 107, 400],
    ['a JSON string', '"hello"', 107, 400],
    ['a body nested 10,000 levels deep', `{"username":"deep","password":"p","x":${'['.repeat(10_000)}${']'.repeat(10_000)}}`, 107, 400],
    ['an oversized body', JSON.stringify({ username: 'big', password: 'p', blob: 'x'.repeat(2 * 1024 * 1024) }), 413, 413],
  ])('answers %s with a clear error', async (_name, rawBody, code, status) => {
    const before = await userCount();
    const res = await h.request('POST', '/1.1/users', { rawBody });
    expect(res.status).toBe(status);
    expect(res.body).toEqual({ code, error: expect.any(String) });
    expect(await userCount()).toBe(before);
  });

  it.each([
    ['username', 202],
    ['email', 203],
    ['mobilePhoneNumber', 214],
  ])('refuses a %s that is already taken with %i', async (field, code) => {
    const taken = { username: unique('u'), email: `${unique('e')}@example.com`, mobilePhoneNumber: `+86${Date.now() % 1e9}${counter++ % 10}` };
    expect((await h.request('POST', '/1.1/users', { body: { ...taken, password: 'p' } })).status).toBe(201);
    const other = { username: unique('v'), email: `${unique('f')}@example.com`, mobilePhoneNumber: `+1${Date.now() % 1e9}${counter++ % 10}` };
    const res = await h.request('POST', '/1.1/users', { body: { ...other, [field]: taken[field as keyof typeof taken], password: 'p' } });
    expect(res.status).toBe(400);
    expect(res.body.code).toBe(code);
  });

  it('treats usernames case-sensitively', async () => {
    const name = unique('Case');
    expect((await h.request('POST', '/1.1/users', { body: { username: name, password: 'p' } })).status).toBe(201);
    expect((await h.request('POST', '/1.1/users', { body: { username: name.toLowerCase(), password: 'p' } })).status).toBe(201);
  });

  it('lets exactly one of many concurrent registrations of one username win', async () => {
    const username = unique('race');
    const attempts = await Promise.all(
      Array.from({ length: 12 }, (_, i) => h.request('POST', '/1.1/users', { body: { username, password: `p${i}` } })),
    );
    const statuses = attempts.map((res) => res.status).sort();
    expect(statuses.filter((status) => status === 201)).toHaveLength(1);
    expect(attempts.filter((res) => res.status === 400).every((res) => res.body.code === 202)).toBe(true);
    const found = await h.request('GET', `/1.1/users?where=${encodeURIComponent(JSON.stringify({ username }))}&count=1`, { master: true });
    expect(found.body.count).toBe(1);
  });

  it('gives a new user the default ACL: public read, the user reads and writes', async () => {
    const res = await h.request('POST', '/1.1/users', { body: { username: unique('acl'), password: 'p' } });
    const me = await h.request('GET', '/1.1/users/me', { session: res.body.sessionToken });
    expect(me.body.ACL).toEqual({ '*': { read: true }, [res.body.objectId]: { read: true, write: true } });
  });
});

describe('authentication of requests', () => {
  it.each([
    ['an unknown app id', { 'X-SVC-Id': 'nope' }],
    ['a wrong app key', { 'X-SVC-Key': 'wrong-key-value' }],
    ['a wrong master key', { 'X-SVC-Key': 'wrong-master,master' }],
  ])('answers 401 to %s', async (_name, headers) => {
    const res = await h.request('POST', '/1.1/users', { body: { username: unique('auth'), password: 'p' }, headers });
    expect(res.status).toBe(401);
    expect(res.body.code).toBe(401);
  });

  it('answers unknown endpoints with 404 in the error shape', async () => {
    const res = await h.request('GET', '/1.1/nothing-here');
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ code: 1, error: expect.stringContaining('/1.1/nothing-here') });
  });
});
