import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { memoryLogger } from '../support/memory-logger.ts';
import { idOf, initSdk, type Sdk, uniqueName } from '../support/sdk-client.ts';
import { servedRequests, type ServedRequest } from '../support/served-requests.ts';
import { startTestHerald, type TestHerald } from '../support/test-herald.ts';

/**
 * The hosted service's JavaScript SDK, unchanged and pointed at Herald only
 * through `serverURLs`, signs users up, logs them in and restores sessions;
 * each step is checked in Herald's store and request log.
 */
let h: TestHerald;
let AV: Sdk;
const log = memoryLogger('debug');

beforeAll(async () => {
  h = await startTestHerald({ logger: log.logger });
  AV = initSdk(h);
});
afterAll(async () => {
  await h?.close();
});
beforeEach(async () => {
  await AV.User.logOut();
});


/** The requests Herald answered while `run` ran. */
async function servedDuring(run: () => Promise<unknown>): Promise<ServedRequest[]> {
  const before = log.lines.length;
  await run();
  return servedRequests(log.lines.slice(before));
}

async function signUp(fields: { username: string; password: string; email?: string }) {
  const user = new AV.User();
  user.setUsername(fields.username);
  user.setPassword(fields.password);
  if (fields.email !== undefined) user.setEmail(fields.email);
  return user.signUp();
}

/** The user as Herald stores it, read with the master key. */
async function stored(objectId: string) {
  const res = await h.request('GET', `/1.1/users/${objectId}`, { master: true });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body;
}

describe('sign-up', () => {
  it('creates the user on Herald through POST /1.1/users, signed with X-LC-Sign, and holds the session Herald issued', async () => {
    const username = uniqueName('ann');
    const user = new AV.User();
    user.setUsername(username);
    user.setPassword('first-pass-1');
    user.setEmail(`${username}@example.com`);
    user.set('nickname', 'Annie');
    const served = await servedDuring(() => user.signUp());

    expect(served.map((r) => [r.method, r.path, r.status])).toEqual([['POST', '/1.1/users', 201]]);
    // The SDK signs with the app key instead of sending it.
    expect(served[0]?.headers).toEqual(expect.arrayContaining(['x-lc-id', 'x-lc-sign']));
    expect(served[0]?.headers).not.toContain('x-lc-key');

    expect(await stored(idOf(user))).toMatchObject({ objectId: idOf(user), username, email: `${username}@example.com`, nickname: 'Annie' });
    expect(await stored(idOf(user))).not.toHaveProperty('password');
    const me = await h.request('GET', '/1.1/users/me', { session: user.getSessionToken() });
    expect(me.body).toMatchObject({ objectId: idOf(user), username });
    expect(AV.User.current()?.id).toBe(idOf(user));
  });

  it('answers a taken username with 202, and Herald keeps one user of that name', async () => {
    const username = uniqueName('dup');
    await signUp({ username, password: 'first-pass-1' });
    await expect(signUp({ username, password: 'other-pass-1' })).rejects.toMatchObject({ code: 202 });
    const found = await h.request('GET', `/1.1/users?where=${encodeURIComponent(JSON.stringify({ username }))}&count=1&limit=0`, { master: true });
    expect(found.body.count).toBe(1);
  });
});

describe('log-in', () => {
  it('logs in by username and by email through POST /1.1/login with the session Herald holds for the user', async () => {
    const username = uniqueName('bea');
    const email = `${username}@example.com`;
    const created = await signUp({ username, password: 'bea-pass-12', email });
    await AV.User.logOut();

    const served = await servedDuring(() => AV.User.logIn(username, 'bea-pass-12'));
    expect(served.map((r) => [r.method, r.path, r.status])).toEqual([['POST', '/1.1/login', 200]]);
    const byName = AV.User.current();
    expect(byName?.id).toBe(idOf(created));
    const session = byName?.getSessionToken() ?? '';
    expect((await h.request('GET', '/1.1/users/me', { session })).body.objectId).toBe(idOf(created));

    await AV.User.logOut();
    const byEmail = await AV.User.loginWithEmail(email, 'bea-pass-12');
    expect(byEmail.id).toBe(idOf(created));
    expect(byEmail.get('username')).toBe(username);
  });

  it('surfaces a wrong password as 210 and a lock-out as 219 (also for the right password), as Herald counts failures', async () => {
    const username = uniqueName('cal');
    await signUp({ username, password: 'cal-pass-12' });
    await AV.User.logOut();
    for (let attempt = 1; attempt <= 6; attempt++) await expect(AV.User.logIn(username, 'wrong-pass')).rejects.toMatchObject({ code: 210 });
    // SPEC.md: more than 6 failures within 15 minutes lock the account.
    await expect(AV.User.logIn(username, 'wrong-pass')).rejects.toMatchObject({ code: 219 });
    await expect(AV.User.logIn(username, 'cal-pass-12')).rejects.toMatchObject({ code: 219 });
    expect(AV.User.current()).toBeNull();
  });

  it('answers an unknown username with 211', async () => {
    await expect(AV.User.logIn(uniqueName('nobody'), 'whatever-1')).rejects.toMatchObject({ code: 211 });
  });
});

describe('sessions', () => {
  it('become restores the user of a session token through GET /1.1/users/me', async () => {
    const username = uniqueName('dee');
    const created = await signUp({ username, password: 'dee-pass-12' });
    const token = created.getSessionToken();
    await AV.User.logOut();

    const served = await servedDuring(() => AV.User.become(token));
    expect(served.map((r) => [r.method, r.path, r.status])).toEqual([['GET', '/1.1/users/me', 200]]);
    expect(served[0]?.headers).toContain('x-lc-session');
    expect(AV.User.current()?.id).toBe(idOf(created));
    expect(AV.User.current()?.get('username')).toBe(username);
  });

  it('become refuses a token Herald does not know (403), leaving no current user', async () => {
    await expect(AV.User.become('not-a-session-token')).rejects.toMatchObject({ code: 403 });
    expect(AV.User.current()).toBeNull();
  });

  it('refreshSessionToken replaces the token on Herald: the old one is refused, the SDK goes on with the new one', async () => {
    const created = await signUp({ username: uniqueName('eve'), password: 'eve-pass-12' });
    const old = created.getSessionToken();
    await created.refreshSessionToken();
    const fresh = AV.User.current()?.getSessionToken();
    expect(fresh).not.toBe(old);
    expect((await h.request('GET', '/1.1/users/me', { session: fresh ?? '' })).body.objectId).toBe(idOf(created));
    expect((await h.request('GET', '/1.1/users/me', { session: old })).status).toBe(403);
    expect(await AV.User.current()?.isAuthenticated()).toBe(true);
  });

  it('destroy deletes the current user through DELETE /1.1/classes/_User/<id>', async () => {
    const created = await signUp({ username: uniqueName('fay'), password: 'fay-pass-12' });
    const served = await servedDuring(() => created.destroy());
    expect(served.map((r) => [r.method, r.path, r.status])).toEqual([['DELETE', `/1.1/classes/_User/${idOf(created)}`, 200]]);
    expect((await h.request('GET', `/1.1/users/${idOf(created)}`, { master: true })).body.code).toBe(211);
  });
});
