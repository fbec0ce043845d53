import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestHerald, type TestHerald } from '../support/test-herald.ts';

/**
 * The hosted service's shipped SDKs send `X-LC-*` headers and may sign
 * requests instead of sending the key (`X-LC-Sign: md5(timestamp + key),
 * timestamp[,master]`). Herald reads both prefixes by default, and
 * `X-SVC-Sign` in the same form.
 */
function sign(timestamp: number, key: string, master = false): string {
  const digest = createHash('md5').update(`${timestamp}${key}`).digest('hex');
  return `${digest},${timestamp}${master ? ',master' : ''}`;
}

async function call(h: TestHerald, method: string, path: string, headers: Record<string, string>, body?: unknown) {
  const response = await fetch(`${h.baseUrl}${path}`, {
    method,
    headers: { ...headers, ...(body === undefined ? {} : { 'Content-Type': 'application/json' }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

describe('with both header prefixes (the default)', () => {
  let h: TestHerald;
  beforeAll(async () => {
    h = await startTestHerald({ settings: { classPermissions: { _User: { find: true } } } });
  });
  afterAll(async () => {
    await h?.close();
  });

  it('signs up, logs in and reads the current user through X-LC-Id, X-LC-Key and X-LC-Session', async () => {
    const lc = { 'X-LC-Id': h.app.id, 'X-LC-Key': h.app.key };
    const created = await call(h, 'POST', '/1.1/users', lc, { username: 'lc-user', password: 'secret-1' });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const login = await call(h, 'POST', '/1.1/login', lc, { username: 'lc-user', password: 'secret-1' });
    expect(login.status).toBe(200);
    const me = await call(h, 'GET', '/1.1/users/me', { ...lc, 'X-LC-Session': String(login.body.sessionToken) });
    expect(me).toMatchObject({ status: 200, body: { objectId: created.body.objectId, username: 'lc-user' } });
  });

  it('accepts a request signed with the app key, and one signed with the master key as master', async () => {
    const now = h.clock.now();
    const signed = await call(h, 'GET', '/1.1/users?where={}', { 'X-LC-Id': h.app.id, 'X-LC-Sign': sign(now, h.app.key) });
    expect(signed.status, JSON.stringify(signed.body)).toBe(200);
    // Deleting a user needs the master key (or the user's session): the signature with ",master" carries it.
    const user = await h.request('POST', '/1.1/users', { body: { username: 'signed-away', password: 'secret-1' } });
    const asApp = await call(h, 'DELETE', `/1.1/users/${user.body.objectId}`, { 'X-SVC-Id': h.app.id, 'X-SVC-Sign': sign(now, h.app.key) });
    // The app key alone may not delete a user.
    expect([401, 403]).toContain(asApp.status);
    const asMaster = await call(h, 'DELETE', `/1.1/users/${user.body.objectId}`, { 'X-SVC-Id': h.app.id, 'X-SVC-Sign': sign(now, h.app.masterKey, true) });
    expect(asMaster.status, JSON.stringify(asMaster.body)).toBe(200);
  });

  it('refuses a signature made with another key, or claiming master with the app key', async () => {
    const now = h.clock.now();
    for (const bad of [sign(now, 'not-the-key'), sign(now, h.app.key, true), sign(now, h.app.masterKey)]) {
      const answer = await call(h, 'GET', '/1.1/users?where={}', { 'X-LC-Id': h.app.id, 'X-LC-Sign': bad });
      expect(answer, bad).toMatchObject({ status: 401, body: { code: 401 } });
    }
  });

  it('refuses a signature whose timestamp is outside the window, saying to check the clock', async () => {
    const now = h.clock.now();
    for (const timestamp of [now - 16 * 60_000, now + 16 * 60_000]) {
      const answer = await call(h, 'GET', '/1.1/users?where={}', { 'X-LC-Id': h.app.id, 'X-LC-Sign': sign(timestamp, h.app.key) });
      expect(answer.status).toBe(401);
      expect(String(answer.body.error)).toContain('900 s from the server');
    }
    const inside = await call(h, 'GET', '/1.1/users?where={}', { 'X-LC-Id': h.app.id, 'X-LC-Sign': sign(now - 14 * 60_000, h.app.key) });
    expect(inside.status).toBe(200);
  });

  it('answers a malformed signature with what the form is', async () => {
    for (const bad of ['abc', `${'0'.repeat(32)}`, `${'0'.repeat(32)},soon`, `${'0'.repeat(32)},1700000000000,admin`]) {
      const answer = await call(h, 'GET', '/1.1/users?where={}', { 'X-LC-Id': h.app.id, 'X-LC-Sign': bad });
      expect(answer.status, bad).toBe(401);
      expect(String(answer.body.error)).toContain('md5(timestamp + key)');
    }
  });
});

describe('with only X-SVC accepted', () => {
  let h: TestHerald;
  beforeAll(async () => {
    h = await startTestHerald({ auth: { headerPrefixes: ['X-SVC'] } });
  });
  afterAll(async () => {
    await h?.close();
  });

  it('does not read X-LC headers', async () => {
    const lc = await call(h, 'POST', '/1.1/users', { 'X-LC-Id': h.app.id, 'X-LC-Key': h.app.key }, { username: 'nope', password: 'secret-1' });
    expect(lc).toMatchObject({ status: 401, body: { code: 401 } });
    const svc = await call(h, 'POST', '/1.1/users', { 'X-SVC-Id': h.app.id, 'X-SVC-Key': h.app.key }, { username: 'yes', password: 'secret-1' });
    expect(svc.status).toBe(201);
  });
});
