import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestHerald, testApp, type TestHerald } from '../support/test-herald.ts';

let h: TestHerald;
const second = testApp({ name: 'Second', settings: { emailVerification: false, classPermissions: { _User: { find: true } } } });
beforeAll(async () => {
  h = await startTestHerald({ settings: { emailVerification: true }, extraApps: [second] });
});
afterAll(() => h.close());

describe('several apps in one deployment', () => {
  it('keeps users, unique values and sessions apart, each app with its own keys and settings', async () => {
    const body = { username: 'same-name', password: 'pw', email: 'same@example.com' };
    const inFirst = await h.request('POST', '/1.1/users', { body });
    const inSecond = await h.request('POST', '/1.1/users', { body, app: second });
    expect(inFirst.status).toBe(201);
    expect(inSecond.status).toBe(201);

    expect((await h.request('GET', '/1.1/users/me', { session: inFirst.body.sessionToken })).body.emailVerified).toBe(false);
    expect((await h.request('GET', '/1.1/users/me', { session: inSecond.body.sessionToken, app: second })).body.emailVerified).toBeNull();

    const crossed = await h.request('GET', '/1.1/users/me', { session: inFirst.body.sessionToken, app: second });
    expect(crossed.status).toBe(403);
    expect((await h.request('GET', `/1.1/users/${inFirst.body.objectId}`, { app: second })).body.code).toBe(211);

    const wrongKey = await h.request('GET', '/1.1/users/me', { headers: { 'X-SVC-Id': second.id, 'X-SVC-Key': h.app.key } });
    expect(wrongKey.status).toBe(401);

    expect((await h.request('GET', '/1.1/users')).status).toBe(403);
    const secondQuery = await h.request('GET', '/1.1/users?count=1', { app: second });
    expect(secondQuery.status).toBe(200);
    expect(secondQuery.body.count).toBe(1);
  });
});
