import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startAppleKeys, type AppleKeys, type IdentityTokenClaims } from '../support/apple-jwks.ts';
import { startTestHerald, type TestHerald } from '../support/test-herald.ts';

let counter = 0;
const uid = () => `001234.${Date.now().toString(36)}${counter++}.0123`;

describe('svc_apple identity tokens', () => {
  let h: TestHerald;
  let keys: AppleKeys;
  beforeAll(async () => {
    keys = await startAppleKeys();
    h = await startTestHerald({ settings: { authData: { svc_apple: { jwksUrl: keys.url, bundleIds: ['com.example.app', 'com.example.app.watch'] } } } });
  });
  afterAll(async () => {
    await h?.close();
    await keys?.close();
  });

  const signIn = async (claims: Partial<IdentityTokenClaims> & { uid?: string }) => {
    const id = claims.uid ?? uid();
    const token = await keys.sign({ sub: id, ...claims });
    return h.request('POST', '/1.1/users', { body: { authData: { svc_apple: { uid: id, identity_token: token, code: 'c' } } } });
  };
  const userCount = async () => (await h.request('GET', '/1.1/users?count=1&limit=0', { master: true })).body.count as number;

  it('signs in with a token signed by the published keys for one of the bundle ids, fetching the keys once', async () => {
    const fetchesBefore = keys.fetches();
    expect((await signIn({})).status).toBe(201);
    expect((await signIn({ aud: 'com.example.app.watch' })).status).toBe(201);
    expect(keys.fetches() - fetchesBefore).toBeLessThanOrEqual(1);
  });

  it.each<[string, Partial<IdentityTokenClaims> & { uid?: string }, RegExp]>([
    ['a key Apple did not publish', { foreignKey: true }, /known key|signature/],
    ['another issuer', { iss: 'https://evil.example' }, /iss/],
    ['another app', { aud: 'com.other.app' }, /aud/],
    ['an expired token', { expiresInSeconds: -120 }, /expired/],
  ])('refuses a token from %s without creating anyone', async (_name, claims, message) => {
    const before = await userCount();
    const res = await signIn(claims);
    expect(res.status).toBe(400);
    expect(res.body.code).toBe(1);
    expect(res.body.error).toMatch(message);
    expect(await userCount()).toBe(before);
  });

  it("refuses a valid token for someone else's uid", async () => {
    const token = await keys.sign({ sub: uid() });
    const res = await h.request('POST', '/1.1/users', { body: { authData: { svc_apple: { uid: uid(), identity_token: token, code: 'c' } } } });
    expect(res.body).toMatchObject({ code: 1, error: expect.stringMatching(/subject/) });
  });

  it('refuses a forged token when linking an account, not only when signing in', async () => {
    const user = await h.request('POST', '/1.1/users', { body: { username: `linker${uid()}`, password: 'pw' } });
    const id = uid();
    const forged = await keys.sign({ sub: id, foreignKey: true });
    const link = await h.request('PUT', `/1.1/users/${user.body.objectId}`, {
      session: user.body.sessionToken,
      body: { authData: { svc_apple: { uid: id, identity_token: forged, code: 'c' } } },
    });
    expect(link.body.code).toBe(1);
    expect((await h.request('GET', '/1.1/users/me', { session: user.body.sessionToken })).body.authData).toBeUndefined();
  });

  it('answers 503 while the keys cannot be fetched, and signs in again once they can', async () => {
    // A token with a key id not in the cache makes Herald fetch the set again.
    keys.answerWith(500);
    const viaNewHerald = await startTestHerald({ settings: { authData: { svc_apple: { jwksUrl: keys.url } } } });
    try {
      const id = uid();
      const token = await keys.sign({ sub: id });
      const body = { authData: { svc_apple: { uid: id, identity_token: token, code: 'c' } } };
      const down = await viaNewHerald.request('POST', '/1.1/users', { body });
      expect(down.status).toBe(503);
      keys.answerWith(200);
      await expect
        .poll(async () => (await viaNewHerald.request('POST', '/1.1/users', { body })).status, {
          timeout: 40_000,
          interval: 1000,
          message: 'the sign-up status through the new node',
        })
        .toBe(201);
    } finally {
      keys.answerWith(200);
      await viaNewHerald.close();
    }
  }, 60_000);

  it('takes tokens on trust when the app turns verification off', async () => {
    const trusting = await startTestHerald({ settings: { authData: { svc_apple: { verify: false } } } });
    try {
      const res = await trusting.request('POST', '/1.1/users', { body: { authData: { svc_apple: { uid: uid(), identity_token: 'not-a-jwt', code: 'c' } } } });
      expect(res.status).toBe(201);
    } finally {
      await trusting.close();
    }
  });
});

describe('a platform validation URL', () => {
  let h: TestHerald;
  let server: Server;
  const seen: unknown[] = [];
  let answer = 200;
  beforeAll(async () => {
    server = createServer((req: IncomingMessage, res) => {
      let body = '';
      req.on('data', (chunk: Buffer) => (body += chunk.toString()));
      req.on('end', () => {
        seen.push(JSON.parse(body));
        res.writeHead(answer).end();
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/check`;
    h = await startTestHerald({ settings: { authData: { validationUrls: { github: url } } } });
  });
  afterAll(async () => {
    await h?.close();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });

  const github = () => ({ uid: `gh${Date.now()}${counter++}`, access_token: 'token-from-github' });

  it('asks it about the platform object and accepts the token on 2xx', async () => {
    answer = 204;
    const data = github();
    expect((await h.request('POST', '/1.1/users', { body: { authData: { github: data } } })).status).toBe(201);
    expect(seen.at(-1)).toEqual({ platform: 'github', authData: data });
  });

  it('refuses the token on 4xx and answers 503 on 5xx, creating nobody', async () => {
    answer = 401;
    const refused = await h.request('POST', '/1.1/users', { body: { authData: { github: github() } } });
    expect(refused.body).toMatchObject({ code: 1, error: expect.stringMatching(/refused by its validation service/) });
    answer = 502;
    expect((await h.request('POST', '/1.1/users', { body: { authData: { github: github() } } })).status).toBe(503);
  });

  it('leaves platforms without a URL alone', async () => {
    answer = 401;
    const before = seen.length;
    expect((await h.request('POST', '/1.1/users', { body: { authData: { weibo: { uid: `wb${counter++}`, access_token: 't', expiration_in: '1' } } } })).status).toBe(201);
    expect(seen.length).toBe(before);
  });
});
