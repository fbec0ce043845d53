import AV, { type AuthData } from 'leancloud-storage';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { toHeraldAuthData } from '../../src/accounts/auth-data/hosted-platform-keys.ts';
import { userClass } from '../../src/accounts/user-fields.ts';
import { isoTime } from '../../src/core/clock.ts';
import { startAppleKeys, type AppleKeys } from '../support/apple-jwks.ts';
import { startTestHerald, type TestHerald } from '../support/test-herald.ts';

/**
 * Third-party keys as the hosted service's SDKs and exports spell them:
 * `lc_apple` is Herald's `svc_apple`, and `qq` sends the user's id as
 * `openid` where Herald reads `uid`. Both are stored in Herald's form,
 * answered so that the SDK finds what it linked, and unique across both
 * spellings. Checks read the stored users, not only the answers.
 */
let h: TestHerald;
let appleKeys: AppleKeys;

beforeAll(async () => {
  appleKeys = await startAppleKeys();
  h = await startTestHerald({ settings: { authData: { svc_apple: { jwksUrl: appleKeys.url, bundleIds: ['com.example.app'] } } } });
  AV.init({ appId: h.app.id, appKey: h.app.key, serverURLs: h.baseUrl });
});
afterAll(async () => {
  await h?.close();
  await appleKeys?.close();
});

let counter = 0;
const unique = (prefix: string) => `${prefix}${Date.now().toString(36)}${counter++}`;

async function appleAccount(uid = unique('apple')) {
  return { uid, identity_token: await appleKeys.sign({ sub: uid }), code: 'auth-code' };
}
const qqAccount = (openid = unique('QQ')) => ({ openid, access_token: 'qq-token', expires_in: 7776000 });

/** The user as stored, without the view answers go through. */
async function stored(objectId: string) {
  const user = await h.herald.runtime.store.get(h.app.id, userClass, objectId);
  expect(user, `no stored user ${objectId}`).not.toBeNull();
  return user as Record<string, unknown>;
}

async function usersWhere(where: Record<string, unknown>): Promise<string[]> {
  const res = await h.request('GET', `/1.1/users?where=${encodeURIComponent(JSON.stringify(where))}`, { master: true });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return (res.body.results as { objectId: string }[]).map((user) => user.objectId);
}

const thirdPartyLogin = (authData: Record<string, unknown>) => h.request('POST', '/1.1/users', { body: { authData } });

describe('lc_apple, the hosted SDKs’ Sign in with Apple', () => {
  it('signs up under lc_apple, is stored as svc_apple, and logs the same user in under either spelling', async () => {
    const account = await appleAccount();
    const first = await thirdPartyLogin({ lc_apple: account });
    expect(first.status, JSON.stringify(first.body)).toBe(201);
    const objectId = first.body.objectId as string;
    expect((await stored(objectId)).authData).toEqual({ svc_apple: account });

    for (const spelling of ['svc_apple', 'lc_apple']) {
      const again = await thirdPartyLogin({ [spelling]: account });
      expect(again.status, JSON.stringify(again.body)).toBe(200);
      expect(again.body).toMatchObject({ objectId, sessionToken: first.body.sessionToken });
      // Answers show both spellings, so the hosted SDK finds `lc_apple` and Herald's clients `svc_apple`.
      expect(again.body.authData).toEqual({ svc_apple: account, lc_apple: account });
    }
    expect((await stored(objectId)).authData).toEqual({ svc_apple: account });
    expect(await usersWhere({ 'authData.svc_apple.uid': account.uid })).toEqual([objectId]);
  });

  it('finds a user who signed up under svc_apple when the hosted SDK logs in under lc_apple', async () => {
    const account = await appleAccount();
    const first = await thirdPartyLogin({ svc_apple: account });
    expect(first.status).toBe(201);
    const again = await thirdPartyLogin({ lc_apple: account });
    expect(again).toMatchObject({ status: 200, body: { objectId: first.body.objectId } });
  });

  it('checks the identity token of lc_apple as of svc_apple: a forged one creates nobody', async () => {
    const uid = unique('forged');
    const res = await thirdPartyLogin({ lc_apple: { uid, identity_token: await appleKeys.sign({ sub: uid, foreignKey: true }), code: 'c' } });
    expect(res.status).toBe(400);
    expect(await usersWhere({ 'authData.svc_apple.uid': uid })).toEqual([]);
  });

  it('refuses both spellings naming different accounts in one request with 105, creating nobody', async () => {
    const [one, other] = [await appleAccount(), await appleAccount()];
    const res = await thirdPartyLogin({ lc_apple: one, svc_apple: other });
    expect(res).toMatchObject({ status: 400, body: { code: 105 } });
    expect(await usersWhere({ 'authData.svc_apple.uid': { $in: [one.uid, other.uid] } })).toEqual([]);
  });

  it('registers with a password and lc_apple, storing svc_apple', async () => {
    const account = await appleAccount();
    const res = await h.request('POST', '/1.1/users', { body: { username: unique('pw'), password: 'secret-1', authData: { lc_apple: account } } });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect((await stored(res.body.objectId as string)).authData).toEqual({ svc_apple: account });
  });

  it('links lc_apple through PUT /classes/_User, refuses the same account to another user (208), and unlinks it as authData.lc_apple', async () => {
    const account = await appleAccount();
    const owner = await h.request('POST', '/1.1/users', { body: { username: unique('owner'), password: 'secret-1' } });
    const { objectId, sessionToken } = owner.body as { objectId: string; sessionToken: string };
    const link = await h.request('PUT', `/1.1/classes/_User/${objectId}`, { session: sessionToken, body: { authData: { lc_apple: account } } });
    expect(link.status, JSON.stringify(link.body)).toBe(200);
    expect((await stored(objectId)).authData).toEqual({ svc_apple: account });
    expect((await h.request('GET', `/1.1/users/me`, { session: sessionToken })).body.authData).toEqual({ svc_apple: account, lc_apple: account });

    const other = await h.request('POST', '/1.1/users', { body: { username: unique('other'), password: 'secret-1' } });
    const taken = await h.request('PUT', `/1.1/users/${other.body.objectId}`, { session: other.body.sessionToken, body: { authData: { svc_apple: account } } });
    expect(taken).toMatchObject({ status: 400, body: { code: 208 } });
    expect((await stored(other.body.objectId as string)).authData).toBeUndefined();

    const unlink = await h.request('PUT', `/1.1/classes/_User/${objectId}`, { session: sessionToken, body: { 'authData.lc_apple': { __op: 'Delete' } } });
    expect(unlink).toMatchObject({ status: 200, body: { objectId } });
    expect((await stored(objectId)).authData).toEqual({});
    // Unlinked, the account is free for the other user.
    const relinked = await h.request('PUT', `/1.1/users/${other.body.objectId}`, { session: other.body.sessionToken, body: { authData: { lc_apple: account } } });
    expect(relinked.status, JSON.stringify(relinked.body)).toBe(200);
    expect(await usersWhere({ 'authData.svc_apple.uid': account.uid })).toEqual([other.body.objectId]);
  });

  it('makes one user of a burst of concurrent sign-ups with both spellings', async () => {
    const account = await appleAccount();
    const answers = await Promise.all(Array.from({ length: 24 }, (_, i) => thirdPartyLogin({ [i % 2 === 0 ? 'lc_apple' : 'svc_apple']: account })));
    for (const answer of answers) expect([200, 201], JSON.stringify(answer.body)).toContain(answer.status);
    expect(answers.filter((answer) => answer.status === 201)).toHaveLength(1);
    const ids = new Set(answers.map((answer) => answer.body.objectId as string));
    expect(ids.size).toBe(1);
    expect(await usersWhere({ 'authData.svc_apple.uid': account.uid })).toEqual([...ids]);
  });
});

describe('qq with openid, as the hosted SDKs send it', () => {
  it('signs up with openid, stores it as uid beside it, and logs the same user in with openid or uid', async () => {
    const account = qqAccount();
    const first = await thirdPartyLogin({ qq: account });
    expect(first.status, JSON.stringify(first.body)).toBe(201);
    const objectId = first.body.objectId as string;
    expect((await stored(objectId)).authData).toEqual({ qq: { ...account, uid: account.openid } });

    const again = await thirdPartyLogin({ qq: { ...account, access_token: 'newer-token' } });
    expect(again).toMatchObject({ status: 200, body: { objectId } });
    expect(again.body.authData.qq).toMatchObject({ openid: account.openid, access_token: 'newer-token' });
    const byUid = await thirdPartyLogin({ qq: { uid: account.openid, access_token: 't' } });
    expect(byUid).toMatchObject({ status: 200, body: { objectId } });
    expect(await usersWhere({ 'authData.qq.uid': account.openid })).toEqual([objectId]);
  });

  it('makes one user of a burst of concurrent sign-ups sending openid or uid', async () => {
    const account = qqAccount();
    const answers = await Promise.all(
      Array.from({ length: 24 }, (_, i) => thirdPartyLogin({ qq: i % 2 === 0 ? account : { uid: account.openid, access_token: 't' } })),
    );
    expect(answers.filter((answer) => answer.status === 201)).toHaveLength(1);
    expect(new Set(answers.map((answer) => answer.body.objectId as string)).size).toBe(1);
    expect(await usersWhere({ 'authData.qq.uid': account.openid })).toHaveLength(1);
  });

  it('refuses a qq openid another user holds (208)', async () => {
    const account = qqAccount();
    await thirdPartyLogin({ qq: account });
    const other = await h.request('POST', '/1.1/users', { body: { username: unique('qqother'), password: 'secret-1' } });
    const taken = await h.request('PUT', `/1.1/users/${other.body.objectId}`, { session: other.body.sessionToken, body: { authData: { qq: account } } });
    expect(taken).toMatchObject({ status: 400, body: { code: 208 } });
    expect((await stored(other.body.objectId as string)).authData).toBeUndefined();
  });
});

describe('users imported from the hosted service', () => {
  it('log in with the hosted SDKs’ objects once the importer has passed their authData through toHeraldAuthData', async () => {
    const apple = await appleAccount();
    const qq = qqAccount();
    const objectId = `imported${String(counter++).padStart(4, '0')}`;
    const at = isoTime(h.clock.now() - 86_400_000);
    await h.herald.runtime.store.insert(h.app.id, userClass, {
      objectId,
      createdAt: at,
      updatedAt: at,
      username: unique('imported'),
      authData: toHeraldAuthData({ lc_apple: apple, qq }),
    });
    expect((await thirdPartyLogin({ lc_apple: apple })).body.objectId).toBe(objectId);
    expect((await thirdPartyLogin({ qq })).body.objectId).toBe(objectId);
    // And the accounts are theirs: a new sign-up with either spelling finds them.
    expect((await thirdPartyLogin({ svc_apple: apple })).status).toBe(200);
  });

  it('are found at login even when their authData was stored in the export’s spelling', async () => {
    const apple = await appleAccount();
    const qq = qqAccount();
    const objectId = `rawexport${String(counter++).padStart(4, '0')}`;
    const at = isoTime(h.clock.now() - 86_400_000);
    await h.herald.runtime.store.insert(h.app.id, userClass, { objectId, createdAt: at, updatedAt: at, username: unique('raw'), authData: { lc_apple: apple, qq } });
    expect(await thirdPartyLogin({ svc_apple: apple })).toMatchObject({ status: 200, body: { objectId } });
    expect(await thirdPartyLogin({ qq: { uid: qq.openid, access_token: 't' } })).toMatchObject({ status: 200, body: { objectId } });
    expect(await usersWhere({ 'authData.svc_apple.uid': apple.uid })).toEqual([objectId]);
  });
});

describe('the hosted SDK (leancloud-storage)', () => {
  it('logs in with lc_apple, sees it linked after logging in again, and unlinks it', async () => {
    const account = await appleAccount();
    // The SDK's types know uid objects with an access_token; Apple's carries identity_token and code instead.
    const created = await AV.User.loginWithAuthData(account as unknown as AuthData, 'lc_apple');
    const objectId = created.id as string;
    expect((await stored(objectId)).authData).toEqual({ svc_apple: account });

    // The second login answers the stored user; the SDK still finds the platform it linked.
    const again = await AV.User.loginWithAuthData(account as unknown as AuthData, 'lc_apple');
    expect(again.id).toBe(objectId);
    expect(Object.keys(again.get('authData') as object)).toContain('lc_apple');

    await again.dissociateAuthData('lc_apple');
    expect((await stored(objectId)).authData).toEqual({});
  });

  it('links qq with openid to a user who signed up with a password', async () => {
    const username = unique('sdkqq');
    const user = new AV.User();
    user.setUsername(username);
    user.setPassword('secret-1');
    await user.signUp();
    const account = qqAccount();
    await user.associateWithAuthData(account, 'qq');
    expect((await stored(user.id as string)).authData).toEqual({ qq: { ...account, uid: account.openid } });
    expect((await AV.User.loginWithAuthData(account, 'qq')).id).toBe(user.id);
  });
});
