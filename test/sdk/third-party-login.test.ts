import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { userClass } from '../../src/accounts/user-fields.ts';
import { startAppleKeys, type AppleKeys } from '../support/apple-jwks.ts';
import { memoryLogger } from '../support/memory-logger.ts';
import { idOf, initSdk, type Sdk, type SdkAuthData, uniqueName } from '../support/sdk-client.ts';
import { servedRequests } from '../support/served-requests.ts';
import { startTestHerald, type TestHerald } from '../support/test-herald.ts';

/**
 * Third-party login as a shipped app does it with the hosted service's
 * JavaScript SDK (`AV.User.loginWithAuthData` and its relatives): the app
 * ran the platform's flow and hands the result over; Herald creates or finds
 * the linked user. Checked in Herald's store.
 */
let h: TestHerald;
let appleKeys: AppleKeys;
let AV: Sdk;
const log = memoryLogger('debug');

beforeAll(async () => {
  appleKeys = await startAppleKeys();
  h = await startTestHerald({ logger: log.logger, settings: { authData: { svc_apple: { jwksUrl: appleKeys.url, bundleIds: ['com.example.app'] } } } });
  AV = initSdk(h);
});
afterAll(async () => {
  await h?.close();
  await appleKeys?.close();
});
beforeEach(async () => {
  await AV.User.logOut();
});


async function stored(objectId: string) {
  const res = await h.request('GET', `/1.1/users/${objectId}`, { master: true });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body;
}

/** Sign in with the mobile OS vendor carries no access_token, which the SDK's typings want on a uid platform. */
async function appleAuthData(uid: string, subject = uid): Promise<SdkAuthData> {
  const data = { uid, identity_token: await appleKeys.sign({ sub: subject }), code: 'auth-code' };
  return data as unknown as SdkAuthData;
}

/** The authData as stored, without the view answers go through (which also shows svc_apple as lc_apple). */
async function storedAuthData(objectId: string): Promise<unknown> {
  const user = await h.herald.runtime.store.get(h.app.id, userClass, objectId);
  expect(user, `no stored user ${objectId}`).not.toBeNull();
  return user?.authData;
}

async function userCount(): Promise<number> {
  const res = await h.request('GET', '/1.1/users?count=1&limit=0', { master: true });
  return res.body.count as number;
}

describe('loginWithAuthData', () => {
  it.each([
    ['weixin', () => ({ openid: uniqueName('wx'), access_token: 'wx-token', expires_in: 7200 })],
    ['weibo', () => ({ uid: uniqueName('wb'), access_token: 'wb-token', expiration_in: '36000' })],
    ['github', () => ({ uid: uniqueName('gh'), access_token: 'gh-token' })],
  ])('creates a user linked to a new %s account through POST /1.1/users, and logs the same account into it again', async (platform, make) => {
    const authData = make();
    const before = log.lines.length;
    const first = await AV.User.loginWithAuthData(authData, platform);
    const served = servedRequests(log.lines.slice(before));
    expect(served.map((r) => [r.method, r.path, r.status])).toEqual([['POST', '/1.1/users', 201]]);

    const saved = await stored(idOf(first));
    expect(saved.authData).toEqual({ [platform]: authData });
    expect(saved.username).toMatch(/^[a-z0-9]{25}$/);
    expect((await h.request('GET', '/1.1/users/me', { session: first.getSessionToken() })).body.objectId).toBe(first.id);

    await AV.User.logOut();
    const again = await AV.User.loginWithAuthData(authData, platform);
    expect(again.id).toBe(first.id);
    expect(again.getSessionToken()).toBe(first.getSessionToken());
    expect(AV.User.current()?.id).toBe(first.id);
  });

  it('signs in with the mobile OS vendor (svc_apple), Herald checking the identity token against the vendor keys', async () => {
    const uid = uniqueName('apple');
    const authData = await appleAuthData(uid);
    const user = await AV.User.loginWithAuthData(authData, 'svc_apple');
    expect(await storedAuthData(idOf(user))).toEqual({ svc_apple: authData });

    const forged = await appleAuthData(uniqueName('apple'), 'someone-else');
    const before = await userCount();
    await expect(AV.User.loginWithAuthData(forged, 'svc_apple')).rejects.toMatchObject({ code: 1, message: expect.stringContaining('identity_token') });
    expect(await userCount()).toBe(before);
  });

  it('signs in under lc_apple, the hosted SDKs\' key, into the user Herald keeps under svc_apple, and sees lc_apple linked', async () => {
    const uid = uniqueName('lcapple');
    const authData = await appleAuthData(uid);
    const user = await AV.User.loginWithAuthData(authData, 'lc_apple');
    expect(await storedAuthData(idOf(user))).toEqual({ svc_apple: authData });
    expect(Object.keys(user.get('authData') as object)).toContain('lc_apple');

    // A user a Herald client created under svc_apple is the one the SDK reaches under lc_apple.
    await AV.User.logOut();
    const other = await appleAuthData(uniqueName('svcapple'));
    const created = await h.request('POST', '/1.1/users', { body: { authData: { svc_apple: other } } });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    expect((await AV.User.loginWithAuthData(other, 'lc_apple')).id).toBe(created.body.objectId);

    const forged = await appleAuthData(uniqueName('lcapple'), 'someone-else');
    const before = await userCount();
    await expect(AV.User.loginWithAuthData(forged, 'lc_apple')).rejects.toMatchObject({ code: 1, message: expect.stringContaining('identity_token') });
    expect(await userCount()).toBe(before);
  });

  it('signs in with qq sending openid, which Herald keeps as the account\'s uid, into the same user each time', async () => {
    const authData = { openid: uniqueName('QQ'), access_token: 'qq-token', expires_in: 7776000 };
    const first = await AV.User.loginWithAuthData(authData, 'qq');
    expect(await storedAuthData(idOf(first))).toEqual({ qq: { ...authData, uid: authData.openid } });
    await AV.User.logOut();
    expect((await AV.User.loginWithAuthData(authData, 'qq')).id).toBe(first.id);
    expect((await AV.User.loginWithAuthData({ ...authData, access_token: 'refreshed' }, 'qq')).id).toBe(first.id);
  });

  it('with failOnNotExist answers 211 for an account no user holds, creating no one', async () => {
    const before = await userCount();
    await expect(AV.User.loginWithAuthData({ uid: uniqueName('gh'), access_token: 't' }, 'github', { failOnNotExist: true })).rejects.toMatchObject({ code: 211 });
    expect(await userCount()).toBe(before);
    expect(AV.User.current()).toBeNull();
  });

  it('loginAnonymously creates a user with an anonymous id', async () => {
    const user = await AV.User.loginAnonymously();
    const saved = await stored(idOf(user));
    expect(saved.authData).toEqual({ anonymous: { id: expect.stringMatching(/^[0-9a-f-]{36}$/) } });
    expect(user.isAnonymous()).toBe(true);
  });

  it('logs in by union id: a second platform with the same unionid reaches the same user, marked with _<platform>_unionid', async () => {
    const unionId = uniqueName('union');
    const first = await AV.User.loginWithAuthDataAndUnionId({ openid: uniqueName('wx'), access_token: 't', expires_in: 7200 }, 'weixin', unionId, {
      unionIdPlatform: 'weixin',
      asMainAccount: true,
    });
    expect(await stored(idOf(first))).toMatchObject({ _weixin_unionid: { uid: unionId } });
    await AV.User.logOut();

    const second = await AV.User.loginWithAuthDataAndUnionId({ openid: uniqueName('mini'), access_token: 't', expires_in: 7200 }, 'wxapp', unionId, {
      unionIdPlatform: 'weixin',
    });
    expect(second.id).toBe(first.id);
    expect(Object.keys((await stored(idOf(first))).authData as object).sort()).toEqual(['weixin', 'wxapp']);
  });
});

describe('linking the current user', () => {
  it('associateWithAuthData links an account through PUT /1.1/classes/_User/<id>; another user cannot take it (208)', async () => {
    const user = new AV.User();
    user.setUsername(uniqueName('linker'));
    user.setPassword('link-pass-12');
    await user.signUp();
    const authData = { uid: uniqueName('gh'), access_token: 'gh-token' };
    const before = log.lines.length;
    await user.associateWithAuthData(authData, 'github');
    const served = servedRequests(log.lines.slice(before));
    expect(served.map((r) => [r.method, r.path, r.status])).toEqual([['PUT', `/1.1/classes/_User/${idOf(user)}`, 200]]);
    expect((await stored(idOf(user))).authData).toEqual({ github: authData });

    await AV.User.logOut();
    const other = await AV.User.loginWithAuthData({ id: randomUUID() }, 'anonymous');
    await expect(other.associateWithAuthData(authData, 'github')).rejects.toMatchObject({ code: 208 });
    expect((await stored(idOf(other))).authData).toEqual({ anonymous: expect.any(Object) });

    await AV.User.logOut();
    expect((await AV.User.loginWithAuthData(authData, 'github')).id).toBe(user.id);
  });

  it('a second link keeps the first (the SDK asks for the stored object back), and dissociateAuthData removes one', async () => {
    const user = await AV.User.loginWithAuthData({ uid: uniqueName('gh'), access_token: 't' }, 'github');
    const weibo = { uid: uniqueName('wb'), access_token: 't', expiration_in: '100' };
    await user.associateWithAuthData(weibo, 'weibo');
    expect(Object.keys((await stored(idOf(user))).authData as object).sort()).toEqual(['github', 'weibo']);
    // The SDK saved with fetchWhenSave: its copy is the stored one, both links included.
    expect(Object.keys(user.get('authData') as object).sort()).toEqual(['github', 'weibo']);

    await user.dissociateAuthData('github');
    expect((await stored(idOf(user))).authData).toEqual({ weibo });
    await AV.User.logOut();
    await expect(AV.User.loginWithAuthData({ uid: 'x', access_token: 't' }, 'github', { failOnNotExist: true })).rejects.toMatchObject({ code: 211 });
  });
});
