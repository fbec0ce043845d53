import { createHash, randomUUID } from 'node:crypto';
import AV from 'leancloud-storage';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startAppleKeys, type AppleKeys } from '../support/apple-jwks.ts';
import { startSmsWebhook, type SmsWebhook } from '../support/sms-webhook.ts';
import { startTestHerald, type RequestOptions, type TestHerald, type TestResponse } from '../support/test-herald.ts';

/** Entries and stored objects are untyped JSON, read as the tests expect them. */
type Json = TestResponse['body'];

/**
 * POST /1.1/batch as the hosted service's SDK uses it: each request runs on
 * its own, in order, through the same routes and rules as a direct request,
 * with the outer request's credentials. Every check reads Herald's side (the
 * stored users and installations), not only the batch's answer.
 */
let h: TestHerald;
let sms: SmsWebhook;
let appleKeys: AppleKeys;

beforeAll(async () => {
  sms = await startSmsWebhook();
  appleKeys = await startAppleKeys();
  h = await startTestHerald({ sms: { webhookUrl: sms.url }, settings: { authData: { svc_apple: { jwksUrl: appleKeys.url, bundleIds: ['com.example.app'] } } } });
  AV.init({ appId: h.app.id, appKey: h.app.key, masterKey: h.app.masterKey, serverURLs: h.baseUrl });
});
afterAll(async () => {
  await h?.close();
  await sms?.close();
  await appleKeys?.close();
});

let counter = 0;
const unique = (prefix: string) => `${prefix}${Date.now().toString(36)}${counter++}`;

interface SubRequest {
  method: string;
  path: string;
  body?: unknown;
  params?: Record<string, unknown>;
}

async function batch(requests: SubRequest[], options: RequestOptions = {}) {
  return h.request('POST', '/1.1/batch', { ...options, body: { requests } });
}

/** The answer's entries, after checking that the batch itself was answered 200 with one entry per request. */
async function entries(requests: SubRequest[], options: RequestOptions = {}): Promise<Json[]> {
  const res = await batch(requests, options);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  expect(Array.isArray(res.body)).toBe(true);
  const list = res.body as unknown as Json[];
  expect(list).toHaveLength(requests.length);
  return list;
}

async function storedUser(objectId: string) {
  return h.request('GET', `/1.1/users/${objectId}`, { master: true });
}

async function storedInstallation(objectId: string) {
  return h.request('GET', `/1.1/installations/${objectId}`, { master: true });
}

async function usersWhere(where: Record<string, unknown>): Promise<Json[]> {
  const res = await h.request('GET', `/1.1/users?where=${encodeURIComponent(JSON.stringify(where))}`, { master: true });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body.results;
}

async function userCount(): Promise<number> {
  return (await h.request('GET', '/1.1/users?count=1&limit=0', { master: true })).body.count as number;
}

async function signUp(username = unique('u')) {
  const res = await h.request('POST', '/1.1/users', { body: { username, password: 'right-pass' } });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return { username, objectId: res.body.objectId as string, sessionToken: res.body.sessionToken as string };
}

async function metricsText(): Promise<string> {
  return (await fetch(`${h.baseUrl}/metrics`)).text();
}

describe('the requests of a batch', () => {
  it('create, read, update and delete users and installations, under either name, with or without /1.1, in order', async () => {
    const username = unique('batch');
    const installationId = randomUUID();
    const created = await entries([
      { method: 'POST', path: '/1.1/users', body: { username, password: 'secret-1', nickname: 'first' } },
      { method: 'POST', path: '/classes/_Installation', body: { deviceType: 'android', installationId, channels: ['news'] } },
    ]);
    expect(created[0]).toEqual({ success: { objectId: expect.any(String), createdAt: expect.any(String), sessionToken: expect.any(String) } });
    expect(created[1]).toEqual({ success: { objectId: expect.any(String), createdAt: expect.any(String) } });
    const userId = created[0]?.success.objectId as string;
    const session = created[0]?.success.sessionToken as string;
    const installation = created[1]?.success.objectId as string;
    expect((await storedUser(userId)).body).toMatchObject({ username, nickname: 'first' });
    expect((await storedInstallation(installation)).body).toMatchObject({ installationId, channels: ['news'] });

    // Later requests see what earlier ones of the same batch wrote.
    const changed = await entries(
      [
        { method: 'PUT', path: `/1.1/classes/_User/${userId}`, body: { nickname: 'second' } },
        { method: 'GET', path: `/users/${userId}` },
        { method: 'PUT', path: `/1.1/installations/${installation}`, body: { channels: { __op: 'Add', objects: ['sport'] } } },
        { method: 'GET', path: `/1.1/classes/_Installation/${installation}` },
      ],
      { session },
    );
    expect(changed[0]).toEqual({ success: { updatedAt: expect.any(String) } });
    expect(changed[1]?.success).toMatchObject({ objectId: userId, username, nickname: 'second' });
    expect(changed[3]?.success).toMatchObject({ objectId: installation, channels: ['news', 'sport'] });
    expect((await storedUser(userId)).body.nickname).toBe('second');

    const deleted = await entries([{ method: 'DELETE', path: `/1.1/classes/_Installation/${installation}` }], { master: true });
    expect(deleted).toEqual([{ success: {} }]);
    expect((await storedInstallation(installation)).body.code).toBe(101);
  });

  it('run each on its own: a failure leaves the requests before it done and runs the ones after it (not a transaction)', async () => {
    const taken = unique('taken');
    const after = unique('after');
    const answers = await entries([
      { method: 'POST', path: '/1.1/users', body: { username: taken, password: 'p-1' } },
      { method: 'POST', path: '/1.1/users', body: { username: taken, password: 'p-2' } },
      { method: 'POST', path: '/1.1/classes/_User', body: { username: after, password: 'p-3' } },
    ]);
    expect(answers[0]).toHaveProperty('success.objectId');
    expect(answers[1]).toEqual({ error: { code: 202, error: expect.any(String) } });
    expect(answers[2]).toHaveProperty('success.objectId');
    expect(await usersWhere({ username: taken })).toHaveLength(1);
    expect(await usersWhere({ username: after })).toHaveLength(1);
  });

  it('run with the outer request’s session, under the same rules: another user’s object is refused and stays as it was', async () => {
    const owner = await signUp();
    const intruder = await signUp();
    const answers = await entries(
      [
        { method: 'PUT', path: `/1.1/classes/_User/${owner.objectId}`, body: { nickname: 'hacked' } },
        { method: 'DELETE', path: `/1.1/classes/_User/${owner.objectId}` },
        { method: 'PUT', path: `/1.1/classes/_User/${intruder.objectId}`, body: { nickname: 'mine' } },
      ],
      { session: intruder.sessionToken },
    );
    expect(answers[0]?.error?.code).toBe(403);
    expect(answers[1]?.error?.code).toBe(403);
    expect(answers[2]).toHaveProperty('success.updatedAt');
    const stored = (await storedUser(owner.objectId)).body;
    expect(stored.username).toBe(owner.username);
    expect(stored).not.toHaveProperty('nickname');
    expect((await storedUser(intruder.objectId)).body.nickname).toBe('mine');
  });

  it('need the master key where a direct request does: deleting installations', async () => {
    const created = await entries([{ method: 'POST', path: '/1.1/installations', body: { deviceType: 'android', installationId: randomUUID() } }]);
    const id = created[0]?.success.objectId as string;
    expect((await entries([{ method: 'DELETE', path: `/1.1/installations/${id}` }]))[0]?.error?.code).toBe(403);
    expect((await storedInstallation(id)).status).toBe(200);
    expect(await entries([{ method: 'DELETE', path: `/1.1/installations/${id}` }], { master: true })).toEqual([{ success: {} }]);
    expect((await storedInstallation(id)).status).toBe(404);
  });

  it('take the credentials of X-LC-* headers and of a signed master request, as the SDK sends them', async () => {
    const user = await signUp();
    const lc = await fetch(`${h.baseUrl}/1.1/batch`, {
      method: 'POST',
      headers: { 'X-LC-Id': h.app.id, 'X-LC-Key': h.app.key, 'X-LC-Session': user.sessionToken, 'Content-Type': 'application/json' },
      body: JSON.stringify({ requests: [{ method: 'PUT', path: `/1.1/classes/_User/${user.objectId}`, body: { nickname: 'via-lc' } }] }),
    });
    expect(lc.status).toBe(200);
    expect(await lc.json()).toEqual([{ success: { updatedAt: expect.any(String) } }]);
    expect((await storedUser(user.objectId)).body.nickname).toBe('via-lc');

    const created = await entries([{ method: 'POST', path: '/1.1/installations', body: { deviceType: 'android', installationId: randomUUID() } }]);
    const id = created[0]?.success.objectId as string;
    const timestamp = String(h.clock.now());
    const sign = `${createHash('md5').update(timestamp + h.app.masterKey).digest('hex')},${timestamp},master`;
    const signed = await fetch(`${h.baseUrl}/1.1/batch`, {
      method: 'POST',
      headers: { 'X-LC-Id': h.app.id, 'X-LC-Sign': sign, 'Content-Type': 'application/json' },
      body: JSON.stringify({ requests: [{ method: 'DELETE', path: `/1.1/classes/_Installation/${id}` }] }),
    });
    expect(await signed.json()).toEqual([{ success: {} }]);
    expect((await storedInstallation(id)).status).toBe(404);
  });

  it('query with params as the SDK sends them for a query too long for a URL', async () => {
    const users = [await signUp(unique('q')), await signUp(unique('q'))];
    const where = { username: { $in: [...users.map((u) => u.username), ...Array.from({ length: 200 }, (_, i) => `filler-${i}-${'x'.repeat(10)}`)] } };
    const answers = await entries([{ method: 'GET', path: '/1.1/classes/_User', params: { where, order: 'username', limit: 10, count: 1 } }], { master: true });
    expect(answers[0]?.success.count).toBe(2);
    expect(answers[0]?.success.results.map((u: { username: string }) => u.username)).toEqual(users.map((u) => u.username).sort());
  });

  it('are each timed in the metrics under their own route, as direct requests are', async () => {
    const user = await signUp();
    const before = await metricsText();
    const route = /herald_http_request_duration_seconds_count\{method="PUT",route="\/1\.1\/classes\/_User\/:objectId",status="200"\} (\d+)/;
    const count = (text: string) => Number(route.exec(text)?.[1] ?? 0);
    await entries(
      [
        { method: 'PUT', path: `/1.1/classes/_User/${user.objectId}`, body: { n: 1 } },
        { method: 'PUT', path: `/1.1/classes/_User/${user.objectId}`, body: { n: 2 } },
      ],
      { session: user.sessionToken },
    );
    const after = await metricsText();
    expect(count(after) - count(before)).toBe(2);
    expect(after).toMatch(/herald_http_request_duration_seconds_count\{method="POST",route="\/1\.1\/batch",status="200"\} [1-9]/);
  });
});

describe('what a batch refuses', () => {
  it('answers an error entry for a nested batch and for paths Herald does not serve, and runs the other requests', async () => {
    const username = unique('beside');
    const user = await signUp();
    const answers = await entries([
      { method: 'POST', path: '/1.1/batch', body: { requests: [{ method: 'POST', path: '/1.1/users', body: { username: unique('nested'), password: 'p' } }] } },
      { method: 'POST', path: '/1.1/classes/Post', body: { title: 'hello' } },
      { method: 'POST', path: `/1.1/users/${user.objectId}`, body: { nickname: 'x' } },
      { method: 'GET', path: 'https://elsewhere.example.com/1.1/users' },
      { method: 'POST', path: '/1.1/users', body: { username, password: 'p' } },
    ]);
    expect(answers[0]).toEqual({ error: { code: 1, error: 'A batch cannot hold another batch.' } });
    expect(answers[1]).toEqual({ error: { code: 1, error: expect.stringContaining('cannot be sent in a batch') } });
    expect(answers[2]).toEqual({ error: { code: 1, error: expect.stringContaining(`does not serve POST /1.1/users/${user.objectId}`) } });
    expect(answers[3]).toEqual({ error: { code: 1, error: expect.stringContaining('cannot be sent in a batch') } });
    expect(answers[4]).toHaveProperty('success.objectId');
    expect(await usersWhere({ username })).toHaveLength(1);
    expect((await storedUser(user.objectId)).body).not.toHaveProperty('nickname');
  });

  it.each([
    ['a body without requests', { request: [] }],
    ['requests that are not an array', { requests: { method: 'POST' } }],
    ['a request that is not an object', { requests: ['POST /1.1/users'] }],
    ['a request without a method', { requests: [{ path: '/1.1/users', body: {} }] }],
    ['a method the object endpoints do not take', { requests: [{ method: 'PATCH', path: '/1.1/users', body: {} }] }],
    ['a request without a path', { requests: [{ method: 'POST', body: {} }] }],
    ['a body that is not an object', { requests: [{ method: 'POST', path: '/1.1/users', body: 'x' }] }],
    ['params that are not an object', { requests: [{ method: 'GET', path: '/1.1/users', params: 'limit=1' }] }],
  ])('refuses %s with 107 and runs none of its requests', async (_name, body) => {
    const username = unique('shape');
    const requests = 'requests' in body && Array.isArray(body.requests) ? [{ method: 'POST', path: '/1.1/users', body: { username, password: 'p' } }, ...body.requests] : undefined;
    const res = await h.request('POST', '/1.1/batch', { body: requests === undefined ? body : { requests } });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ code: 107, error: expect.any(String) });
    expect(await usersWhere({ username })).toHaveLength(0);
  });

  it('refuses malformed JSON with 107', async () => {
    const res = await h.request('POST', '/1.1/batch', { rawBody: '{"requests": [' });
    expect(res).toMatchObject({ status: 400, body: { code: 107 } });
  });

  it('takes 50 requests and refuses 51 with 1, creating nobody', async () => {
    const prefix = unique('fifty');
    const make = (n: number) => Array.from({ length: n }, (_, i) => ({ method: 'POST', path: '/1.1/installations', body: { deviceType: 'android', installationId: randomUUID(), tag: `${prefix}-${n}-${i}` } }));
    const refused = await batch(make(51));
    expect(refused.status).toBe(400);
    expect(refused.body).toEqual({ code: 1, error: expect.stringContaining('at most 50') });
    const stored = async (n: number) =>
      (await h.request('GET', `/1.1/installations?count=1&limit=0&where=${encodeURIComponent(JSON.stringify({ tag: { $regex: `^${prefix}-${n}-` } }))}`, { master: true })).body.count;
    expect(await stored(51)).toBe(0);

    const taken = await entries(make(50));
    expect(taken.every((entry) => typeof entry.success?.objectId === 'string')).toBe(true);
    expect(await stored(50)).toBe(50);
  });

  it('counts each id of a DELETE of several ids toward the 50, deleting nothing when there are more', async () => {
    const created = await entries([{ method: 'POST', path: '/1.1/installations', body: { deviceType: 'android', installationId: randomUUID() } }]);
    const id = created[0]?.success.objectId as string;
    const ids = [id, ...Array.from({ length: 50 }, (_, i) => `missing${i}`)];
    const refused = await batch([{ method: 'DELETE', path: `/1.1/classes/_Installation/${ids.join(',')}` }], { master: true });
    expect(refused).toMatchObject({ status: 400, body: { code: 1 } });
    expect((await storedInstallation(id)).status).toBe(200);
  });

  it('answers an empty batch with an empty array', async () => {
    expect(await entries([])).toEqual([]);
  });

  it('holds the body limit over the whole batch (413), running nothing', async () => {
    const username = unique('big');
    const requests = [
      { method: 'POST', path: '/1.1/users', body: { username, password: 'p' } },
      { method: 'POST', path: '/1.1/installations', body: { deviceType: 'android', installationId: randomUUID(), note: 'x'.repeat(1024 * 1024) } },
    ];
    const res = await batch(requests);
    expect(res).toMatchObject({ status: 413, body: { code: 413 } });
    expect(await usersWhere({ username })).toHaveLength(0);
  });

  it('needs the app’s credentials like any request', async () => {
    const username = unique('anon');
    const res = await fetch(`${h.baseUrl}/1.1/batch`, {
      method: 'POST',
      headers: { 'X-SVC-Id': h.app.id, 'X-SVC-Key': 'wrong', 'Content-Type': 'application/json' },
      body: JSON.stringify({ requests: [{ method: 'POST', path: '/1.1/users', body: { username, password: 'p' } }] }),
    });
    expect(res.status).toBe(401);
    expect(await usersWhere({ username })).toHaveLength(0);
  });
});

describe('batches and the account lock', () => {
  const login = (username: string, password: string): SubRequest => ({ method: 'POST', path: '/1.1/login', body: { username, password } });

  it('refuses login in a batch, so a burst of guesses checks no password and counts no failure', async () => {
    const user = await signUp();
    const failures = (text: string) => [...text.matchAll(/herald_login_failures_total\{[^}]*\} (\d+)/g)].reduce((sum, m) => sum + Number(m[1]), 0);
    const before = failures(await metricsText());
    const guesses = [...Array.from({ length: 49 }, (_, i) => login(user.username, `guess-${i}`)), login(user.username, 'right-pass')];
    const answers = await entries(guesses);
    for (const answer of answers) expect(answer).toEqual({ error: { code: 1, error: expect.stringContaining('POST /1.1/login cannot be sent in a batch') } });
    expect(failures(await metricsText())).toBe(before);
    // Nothing was counted against the account: its owner logs in at once.
    expect((await h.request('POST', '/1.1/login', { body: { username: user.username, password: 'right-pass' } })).status).toBe(200);
  });

  it('gives a locked account no way in through a batch', async () => {
    const user = await signUp();
    for (let i = 0; i < 7; i++) await h.request('POST', '/1.1/login', { body: { username: user.username, password: 'wrong' } });
    expect((await h.request('POST', '/1.1/login', { body: { username: user.username, password: 'right-pass' } })).body.code).toBe(219);
    const answers = await entries([login(user.username, 'right-pass'), { method: 'POST', path: '/login', body: { username: user.username, password: 'right-pass' } }]);
    expect(answers.every((answer) => answer.error?.code === 1 && !('sessionToken' in answer))).toBe(true);
    expect((await h.request('POST', '/1.1/login', { body: { username: user.username, password: 'right-pass' } })).body.code).toBe(219);
  });

  it('refuses password changes, SMS codes, emails and pushes, so none of their limits can be multiplied', async () => {
    const number = `+4478${String(Date.now()).slice(-8)}${counter++ % 10}`;
    const user = await signUp();
    const answers = await entries(
      [
        { method: 'PUT', path: `/1.1/users/${user.objectId}/updatePassword`, body: { old_password: 'wrong', new_password: 'new-pass' } },
        { method: 'PUT', path: `/1.1/users/${user.objectId}/updatePassword`, body: { old_password: 'right-pass', new_password: 'new-pass' } },
        { method: 'POST', path: '/1.1/requestSmsCode', body: { mobilePhoneNumber: number } },
        { method: 'POST', path: '/1.1/requestSmsCode', body: { mobilePhoneNumber: number } },
        { method: 'POST', path: '/1.1/usersByMobilePhone', body: { mobilePhoneNumber: number, smsCode: '123456' } },
        { method: 'POST', path: '/1.1/requestPasswordReset', body: { email: 'someone@example.com' } },
        { method: 'POST', path: '/1.1/requestEmailVerify', body: { email: 'someone@example.com' } },
        { method: 'PUT', path: `/1.1/users/${user.objectId}/refreshSessionToken` },
        { method: 'POST', path: '/1.1/push', body: { data: { alert: 'hi' } } },
      ],
      { session: user.sessionToken, master: true },
    );
    for (const answer of answers) expect(answer.error?.code).toBe(1);
    // The password is unchanged, the session still works, and no SMS went out.
    expect((await h.request('POST', '/1.1/login', { body: { username: user.username, password: 'right-pass' } })).body.sessionToken).toBe(user.sessionToken);
    expect(sms.messages.filter((message) => message.to === number)).toHaveLength(0);
    expect((await h.request('GET', '/1.1/notifications?count=1&limit=0', { master: true })).body.count).toBe(0);
  });
});

describe('third-party login through a batch', () => {
  const weibo = () => ({ uid: unique('wb'), access_token: 'tok', expiration_in: '36000' });

  it('makes one user of a burst of 50 logins with the same account, and logs the others in', async () => {
    const account = weibo();
    const answers = await entries(Array.from({ length: 50 }, () => ({ method: 'POST', path: '/1.1/users', body: { authData: { weibo: account } } })));
    const ids = new Set(answers.map((answer) => answer.success?.objectId as string));
    expect(ids.size).toBe(1);
    expect(answers[0]?.success).toEqual({ objectId: expect.any(String), createdAt: expect.any(String), sessionToken: expect.any(String), username: expect.any(String) });
    expect(answers[49]?.success).toMatchObject({ authData: { weibo: account } });
    expect(await usersWhere({ 'authData.weibo.uid': account.uid })).toHaveLength(1);
  });

  it('makes one user of concurrent batches logging in with the same account', async () => {
    const account = weibo();
    const requests = Array.from({ length: 10 }, () => ({ method: 'POST', path: '/1.1/classes/_User', body: { authData: { weibo: account } } }));
    const answers = (await Promise.all(Array.from({ length: 5 }, () => entries(requests)))).flat();
    expect(new Set(answers.map((answer) => answer.success?.objectId as string)).size).toBe(1);
    expect(await usersWhere({ 'authData.weibo.uid': account.uid })).toHaveLength(1);
  });

  it('checks platform tokens as a direct login does: a forged Apple token creates nobody', async () => {
    const before = await userCount();
    const uid = unique('apple');
    const forged = await appleKeys.sign({ sub: uid, aud: 'com.attacker.app' });
    const answers = await entries(Array.from({ length: 5 }, () => ({ method: 'POST', path: '/1.1/users', body: { authData: { svc_apple: { uid, identity_token: forged, code: 'c' } } } })));
    for (const answer of answers) expect(answer.error?.code).toBe(1);
    expect(await usersWhere({ 'authData.svc_apple.uid': uid })).toHaveLength(0);
    expect(await userCount()).toBe(before);
  });

  it('answers 211 with failOnNotExist in params, creating nobody', async () => {
    const account = weibo();
    const answers = await entries([{ method: 'POST', path: '/1.1/users', params: { failOnNotExist: true }, body: { authData: { weibo: account } } }]);
    expect(answers[0]?.error?.code).toBe(211);
    expect(await usersWhere({ 'authData.weibo.uid': account.uid })).toHaveLength(0);
  });
});

describe('the hosted SDK (leancloud-storage) batching', () => {
  it('saves, fetches and destroys several installations with saveAll, fetchAll and destroyAll', async () => {
    const tag = unique('sdk');
    const devices = Array.from({ length: 3 }, (_, i) => {
      const device = new AV.Object('_Installation');
      device.set('deviceType', 'android');
      device.set('installationId', randomUUID());
      device.set('tag', tag);
      device.set('order', i);
      return device;
    });
    await AV.Object.saveAll(devices);
    const ids = devices.map((device) => device.id as string);
    expect(ids.every((id) => typeof id === 'string')).toBe(true);
    for (const [i, id] of ids.entries()) expect((await storedInstallation(id)).body).toMatchObject({ tag, order: i });

    await h.request('PUT', `/1.1/installations/${ids[1]}`, { body: { order: 10 } });
    const fetched = await AV.Object.fetchAll(ids.map((id) => AV.Object.createWithoutData('_Installation', id)));
    expect(fetched.map((device) => (device as AV.Object).get('order') as number)).toEqual([0, 10, 2]);

    // Several objects of one class go out as one DELETE of "<id>,<id>,<id>".
    await AV.Object.destroyAll(devices, { useMasterKey: true });
    for (const id of ids) expect((await storedInstallation(id)).status).toBe(404);
  });

  it('gives destroyAll the first failure when one of the ids cannot be deleted, after deleting the ones before it', async () => {
    const created = await entries(Array.from({ length: 2 }, () => ({ method: 'POST', path: '/1.1/installations', body: { deviceType: 'android', installationId: randomUUID() } })));
    const [first, second] = created.map((entry) => entry.success.objectId as string);
    const answers = await entries([{ method: 'DELETE', path: `/1.1/classes/_Installation/${first},missing0id,${second}` }], { master: true });
    expect(answers[0]?.error?.code).toBe(101);
    expect((await storedInstallation(String(first))).status).toBe(404);
    expect((await storedInstallation(String(second))).status).toBe(200);
  });
});
