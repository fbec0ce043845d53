import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DuplicateValueError } from '../../src/core/errors.ts';
import type { Store, StoredObject } from '../../src/core/ports/object-store.ts';
import { startAppleKeys, type AppleKeys } from '../support/apple-jwks.ts';
import { startTestHerald, type TestHerald } from '../support/test-herald.ts';

let h: TestHerald;
let appleKeys: AppleKeys;
beforeAll(async () => {
  appleKeys = await startAppleKeys();
  h = await startTestHerald({ settings: { authData: { svc_apple: { jwksUrl: appleKeys.url, bundleIds: ['com.example.app'] } } } });
});
afterAll(async () => {
  await h.close();
  await appleKeys.close();
});

let counter = 0;
const id = (prefix: string) => `${prefix}${Date.now().toString(36)}${counter++}`;

const platforms = {
  weibo: () => ({ uid: id('wb'), access_token: 'tok', expiration_in: '36000' }),
  weixin: () => ({ openid: id('wx'), access_token: 'tok', expires_in: 7200 }),
  svc_apple: async () => {
    const uid = id('apple');
    return { uid, identity_token: await appleKeys.sign({ sub: uid }), code: 'auth-code' };
  },
  taptap: () => {
    const kid = id('kid');
    return { kid, access_token: kid, token_type: 'mac', mac_key: 'mk', mac_algorithm: 'hmac-sha-1', openid: id('tap'), name: 'Tap User', avatar: 'https://example.com/a.png', unionid: id('tu') };
  },
  github: () => ({ uid: id('gh'), access_token: 'tok' }),
  anonymous: () => ({ id: randomUUID() }),
};

describe('third-party login', () => {
  it.each(Object.entries(platforms))('creates a user for a new %s account (201) and logs the same account in again (200)', async (platform, make) => {
    const data = await make();
    const first = await h.request('POST', '/1.1/users', { body: { authData: { [platform]: data } } });
    expect(first.status).toBe(201);
    expect(first.body).toEqual({ objectId: expect.any(String), createdAt: expect.any(String), sessionToken: expect.any(String), username: expect.stringMatching(/^[a-z0-9]{25}$/) });
    expect(first.headers.get('location')).toBe(`${h.baseUrl}/1.1/users/${first.body.objectId}`);

    const again = await h.request('POST', '/1.1/users', { body: { authData: { [platform]: data } } });
    expect(again.status).toBe(200);
    expect(again.headers.get('location')).toBe(`${h.baseUrl}/1.1/users/${first.body.objectId}`);
    expect(again.body).toMatchObject({ objectId: first.body.objectId, username: first.body.username, sessionToken: first.body.sessionToken, authData: { [platform]: data } });
    expect(again.body.updatedAt).toBeTruthy();
  });

  it('logs a login that lost the race in as the user the winner is still writing, not 208', async () => {
    // As on Cassandra, which claims a unique value before it writes the object: the account is taken
    // (this request's insert is refused) while the user that took it cannot be read yet.
    const accounts = h.herald.runtime.accounts;
    const store = accounts.store;
    const data = platforms.weibo();
    let winner: string | undefined;
    let hidden = true;
    accounts.store = new Proxy(store, {
      get(target, property, receiver) {
        if (property === 'insert') {
          return async (appId: string, className: string, object: StoredObject) => {
            if (className !== '_User' || winner !== undefined) return target.insert(appId, className, object);
            // The other request's user, written now and readable only 200 ms later.
            await target.insert(appId, className, object);
            winner = object.objectId;
            setTimeout(() => (hidden = false), 200);
            throw new DuplicateValueError('authData.weibo.uid');
          };
        }
        if (property === 'findByUnique') {
          return async (...args: Parameters<Store['findByUnique']>) => {
            const found = await target.findByUnique(...args);
            return hidden && found?.objectId === winner ? null : found;
          };
        }
        const value: unknown = Reflect.get(target, property, receiver);
        return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
      },
    });
    try {
      const res = await h.request('POST', '/1.1/users', { body: { authData: { weibo: data } } });
      expect(res.status).toBe(200);
      expect(res.body.objectId).toBe(winner);
    } finally {
      accounts.store = store;
    }
    const users = await h.request('GET', `/1.1/users?where=${encodeURIComponent(JSON.stringify({ 'authData.weibo.uid': data.uid }))}`, { master: true });
    expect(users.body.results).toHaveLength(1);
  });

  it.each([
    ['a missing key of the microblog platform', { weibo: { access_token: 't', expiration_in: '1' } }, 113],
    ['a non-numeric expires_in', { weixin: { openid: 'o', access_token: 't', expires_in: 'soon' } }, 111],
    ['an anonymous id that is not a lowercase UUID', { anonymous: { id: 'ABC' } }, 1],
    ['a platform that is not an object', { weibo: 'x' }, 111],
    ['authData that is not an object', 'x', 111],
    ['a reserved platform name', { _weibo: { uid: 'u', access_token: 't' } }, 105],
    ['union keys on an unrecognised platform', { github: { uid: 'u', access_token: 't', unionid: 'x', platform: 'github' } }, 105],
  ])('refuses %s without creating anyone', async (_name, authData, code) => {
    const before = (await h.request('GET', '/1.1/users?count=1&limit=0', { master: true })).body.count as number;
    const res = await h.request('POST', '/1.1/users', { body: { authData } });
    expect(res.status).toBe(400);
    if (code !== 1) expect(res.body.code).toBe(code);
    else expect(typeof res.body.code).toBe('number');
    expect((await h.request('GET', '/1.1/users?count=1&limit=0', { master: true })).body.count).toBe(before);
  });

  it('answers 211 with failOnNotExist instead of creating a user', async () => {
    const res = await h.request('POST', '/1.1/users?failOnNotExist=true', { body: { authData: { weibo: platforms.weibo() } } });
    expect(res.status).toBe(400);
    expect(res.body.code).toBe(211);
    const data = platforms.weibo();
    await h.request('POST', '/1.1/users', { body: { authData: { weibo: data } } });
    expect((await h.request('POST', '/1.1/users?failOnNotExist=true', { body: { authData: { weibo: data } } })).status).toBe(200);
  });

  it('links and unlinks a platform through PUT, and refuses an account another user holds (208)', async () => {
    const reg = await h.request('POST', '/1.1/users', { body: { username: id('link'), password: 'p' } });
    const session = reg.body.sessionToken as string;
    const weibo = platforms.weibo();
    const link = await h.request('PUT', `/1.1/users/${reg.body.objectId}`, { session, body: { authData: { weibo } } });
    expect(link.status).toBe(200);
    const github = platforms.github();
    await h.request('PUT', `/1.1/users/${reg.body.objectId}`, { session, body: { authData: { github } } });
    const me = await h.request('GET', '/1.1/users/me', { session });
    expect(me.body.authData).toEqual({ weibo, github });
    const viaWeibo = await h.request('POST', '/1.1/users', { body: { authData: { weibo } } });
    expect(viaWeibo.status).toBe(200);
    expect(viaWeibo.body.objectId).toBe(reg.body.objectId);

    const other = await h.request('POST', '/1.1/users', { body: { username: id('other'), password: 'p' } });
    const stolen = await h.request('PUT', `/1.1/users/${other.body.objectId}`, { session: other.body.sessionToken, body: { authData: { weibo } } });
    expect(stolen.status).toBe(400);
    expect(stolen.body.code).toBe(208);

    const unlink = await h.request('PUT', `/1.1/users/${reg.body.objectId}`, { session, body: { 'authData.weibo': { __op: 'Delete' } } });
    expect(unlink.status).toBe(200);
    expect(unlink.body).toEqual({ updatedAt: expect.any(String), objectId: reg.body.objectId });
    expect((await h.request('GET', '/1.1/users/me', { session })).body.authData).toEqual({ github });
    const nowFree = await h.request('PUT', `/1.1/users/${other.body.objectId}`, { session: other.body.sessionToken, body: { authData: { weibo } } });
    expect(nowFree.status).toBe(200);
  });

  it('registers by union id, then logs the same person in from another platform of the union', async () => {
    const unionid = id('union');
    const app1 = { openid: id('o1'), access_token: 't', expires_in: 7200, unionid, platform: 'weixin', main_account: 'true' };
    const first = await h.request('POST', '/1.1/users', { body: { authData: { wxapp1: app1 } } });
    expect(first.status).toBe(201);
    expect(first.body).toMatchObject({ emailVerified: null, mobilePhoneVerified: false, _weixin_unionid: { uid: unionid } });

    const app2 = { openid: id('o2'), access_token: 't2', expires_in: 7200, unionid, platform: 'weixin', main_account: false };
    const second = await h.request('POST', '/1.1/users', { body: { authData: { wxapp2: app2 } } });
    expect(second.status).toBe(200);
    expect(second.body.objectId).toBe(first.body.objectId);
    expect(second.body.authData).toEqual({ wxapp1: app1, wxapp2: app2 });
    expect(second.body._weixin_unionid).toEqual({ uid: unionid });
  });

  it('does not join a union through a user that is not its main account', async () => {
    const unionid = id('union');
    const notMain = { openid: id('o1'), access_token: 't', expires_in: 7200, unionid, platform: 'weixin', main_account: false };
    const first = await h.request('POST', '/1.1/users', { body: { authData: { wxapp1: notMain } } });
    expect(first.status).toBe(201);
    expect(first.body).not.toHaveProperty('_weixin_unionid');
    const other = { openid: id('o2'), access_token: 't', expires_in: 7200, unionid, platform: 'weixin', main_account: false };
    const second = await h.request('POST', '/1.1/users', { body: { authData: { wxapp2: other } } });
    expect(second.status).toBe(201);
    expect(second.body.objectId).not.toBe(first.body.objectId);
  });

  it('creates exactly one user when the same new account logs in concurrently', async () => {
    const data = platforms.github();
    const answers = await Promise.all(Array.from({ length: 8 }, () => h.request('POST', '/1.1/users', { body: { authData: { github: data } } })));
    const ids = new Set(answers.map((res) => res.body.objectId as string));
    expect(ids.size).toBe(1);
    expect(answers.filter((res) => res.status === 201)).toHaveLength(1);
    expect(answers.every((res) => res.status === 201 || res.status === 200)).toBe(true);
  });
});
