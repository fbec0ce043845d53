import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { memoryLogger } from '../support/memory-logger.ts';
import { idOf, initSdk, updatePassword, type Sdk, uniqueName } from '../support/sdk-client.ts';
import { servedRequests } from '../support/served-requests.ts';
import { startTestHerald, type TestHerald } from '../support/test-herald.ts';

/**
 * What a shipped app does with the logged-in user through the hosted
 * service's JavaScript SDK: save its fields, change its password, protect it
 * with an ACL. Herald's defaults: `_User` is not queryable with the app key,
 * sessions survive a password change.
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


async function signUp(password = 'first-pass-1') {
  const user = new AV.User();
  user.setUsername(uniqueName('u'));
  user.setPassword(password);
  return user.signUp();
}

/** The logged-in user the SDK holds. */
function current() {
  const user = AV.User.current();
  if (user === null) throw new Error('the SDK holds no current user');
  return user;
}

/** The user as Herald stores it, read with the master key. */
async function stored(objectId: string) {
  const res = await h.request('GET', `/1.1/users/${objectId}`, { master: true });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body;
}

describe('saving the current user', () => {
  it('writes set, increment, addUnique, remove, unset, dates and pointers through PUT /1.1/classes/_User/<id>, as Herald stores them', async () => {
    const user = await signUp();
    user.set('nickname', 'Gil');
    user.set('visits', 1);
    user.set('tags', ['a', 'b']);
    user.set('badges', ['gold', 'tin']);
    user.set('doomed', 'soon gone');
    await user.save();

    const before = log.lines.length;
    user.increment('visits', 2);
    user.addUnique('tags', ['b', 'c']);
    user.remove('badges', 'tin');
    user.unset('doomed');
    user.set('birthday', new Date('2001-02-03T04:05:06.789Z'));
    user.set('friend', AV.Object.createWithoutData('_User', idOf(user)));
    await user.save();
    const served = servedRequests(log.lines.slice(before));
    expect(served.map((r) => [r.method, r.path, r.status])).toEqual([['PUT', `/1.1/classes/_User/${idOf(user)}`, 200]]);

    const saved = await stored(idOf(user));
    expect(saved).toMatchObject({
      nickname: 'Gil',
      visits: 3,
      birthday: { __type: 'Date', iso: '2001-02-03T04:05:06.789Z' },
      friend: { __type: 'Pointer', className: '_User', objectId: idOf(user) },
    });
    expect(saved.tags).toEqual(['a', 'b', 'c']);
    expect(saved.badges).toEqual(['gold']);
    expect(saved).not.toHaveProperty('doomed');
  });

  it('increments the stored value, not the copy the SDK holds, when another client changed it meanwhile', async () => {
    const user = await signUp();
    user.set('points', 10);
    await user.save();
    expect((await h.request('PUT', `/1.1/users/${idOf(user)}`, { master: true, body: { points: 50 } })).status).toBe(200);
    user.increment('points', 5);
    await user.save();
    expect((await stored(idOf(user))).points).toBe(55);
  });

  it('answers a save with fetchWhenSave (?new=true) with the stored object, so the SDK sees what other clients changed', async () => {
    const user = await signUp();
    user.set('points', 10);
    await user.save();
    expect((await h.request('PUT', `/1.1/users/${idOf(user)}`, { master: true, body: { points: 50, title: 'set elsewhere' } })).status).toBe(200);

    const before = log.lines.length;
    user.increment('points', 5);
    await user.save(null, { fetchWhenSave: true });
    const served = servedRequests(log.lines.slice(before));
    expect(served.map((r) => [r.method, r.path, r.query.get('new')])).toEqual([['PUT', `/1.1/classes/_User/${idOf(user)}`, 'true']]);
    expect(user.get('points')).toBe(55);
    expect(user.get('title')).toBe('set elsewhere');
    expect(user.getSessionToken()).toBe(current().getSessionToken());
  });

  it('refuses a conditional save (save with a query), which Herald does not evaluate, and writes nothing', async () => {
    const user = await signUp();
    user.set('points', 10);
    await user.save();
    user.set('points', 99);
    await expect(user.save(null, { query: new AV.Query(AV.User).equalTo('points', 10) })).rejects.toMatchObject({
      code: 1,
      message: expect.stringContaining('Conditional saves'),
    });
    expect((await stored(idOf(user))).points).toBe(10);
  });

  it('applies the ACL the SDK sets: another user can neither read nor change the user', async () => {
    const other = await signUp();
    const otherSession = other.getSessionToken();
    await AV.User.logOut();
    const user = await signUp();
    const acl = new AV.ACL();
    acl.setReadAccess(user, true);
    acl.setWriteAccess(user, true);
    user.setACL(acl);
    user.set('secret', 'mine');
    await user.save();

    expect((await stored(idOf(user))).ACL).toEqual({ [idOf(user)]: { read: true, write: true } });
    expect((await h.request('GET', `/1.1/users/${idOf(user)}`, { session: otherSession })).body.code).toBe(211);
    const asOther = AV.Object.createWithoutData('_User', idOf(user));
    asOther.set('secret', 'stolen');
    await expect(asOther.save(null, { sessionToken: otherSession })).rejects.toMatchObject({ code: 403 });
    expect((await stored(idOf(user))).secret).toBe('mine');
  });

  it('refuses to save a user without a session (206), and Herald keeps the user as it was', async () => {
    const user = await signUp();
    await AV.User.logOut();
    const anonymous = AV.Object.createWithoutData('_User', idOf(user));
    anonymous.set('nickname', 'intruder');
    await expect(anonymous.save()).rejects.toMatchObject({ code: 206 });
    expect(await stored(idOf(user))).not.toHaveProperty('nickname');
  });
});

describe('updatePassword', () => {
  it('changes the password on Herald through PUT /1.1/users/<id>/updatePassword; the session goes on', async () => {
    const user = await signUp('old-pass-123');
    const username = user.getUsername();
    const before = log.lines.length;
    await updatePassword(current(), 'old-pass-123', 'new-pass-456');
    const served = servedRequests(log.lines.slice(before));
    expect(served.map((r) => [r.method, r.path, r.status])).toEqual([['PUT', `/1.1/users/${idOf(user)}/updatePassword`, 200]]);

    expect((await h.request('POST', '/1.1/login', { body: { username, password: 'old-pass-123' } })).body.code).toBe(210);
    expect((await h.request('POST', '/1.1/login', { body: { username, password: 'new-pass-456' } })).status).toBe(200);
    // Herald's default keeps sessions across a password change, as the hosted service does.
    expect(await current().isAuthenticated()).toBe(true);
    await current().fetch();
    expect(current().id).toBe(idOf(user));
  });

  it('surfaces a wrong old password as 210 and keeps the password', async () => {
    const user = await signUp('kept-pass-12');
    await expect(updatePassword(current(), 'not-the-pass', 'new-pass-456')).rejects.toMatchObject({ code: 210 });
    expect((await h.request('POST', '/1.1/login', { body: { username: user.getUsername(), password: 'kept-pass-12' } })).status).toBe(200);
  });
});

describe('querying users without the find permission', () => {
  it('is refused with the app key (403) and answered with the master key', async () => {
    const user = await signUp();
    const byName = () => new AV.Query('_User').equalTo('username', user.getUsername());
    await expect(byName().find()).rejects.toMatchObject({ code: 403 });
    const found = await byName().find({ useMasterKey: true });
    expect(found.map((u) => u.id)).toEqual([idOf(user)]);
  });
});
