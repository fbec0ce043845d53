import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestHerald, type TestHerald } from '../support/test-herald.ts';

let h: TestHerald;
beforeAll(async () => {
  h = await startTestHerald({ settings: { forceReloginAfterPasswordChange: true } });
});
afterAll(() => h.close());

describe('forced re-login after a password change', () => {
  it('issues a new session token on updatePassword; the old one gets 403', async () => {
    const reg = await h.request('POST', '/1.1/users', { body: { username: 'dora', password: 'old-pw' } });
    const res = await h.request('PUT', `/1.1/users/${reg.body.objectId}/updatePassword`, { session: reg.body.sessionToken, body: { old_password: 'old-pw', new_password: 'new-pw' } });
    expect(res.status).toBe(200);
    expect(res.body.sessionToken).not.toBe(reg.body.sessionToken);
    const stale = await h.request('GET', '/1.1/users/me', { session: reg.body.sessionToken });
    expect(stale.status).toBe(403);
    expect(stale.body.code).toBe(403);
    expect((await h.request('GET', '/1.1/users/me', { session: res.body.sessionToken })).status).toBe(200);
    expect((await h.request('POST', '/1.1/login', { body: { username: 'dora', password: 'new-pw' } })).body.sessionToken).toBe(res.body.sessionToken);
  });

  it('does the same when the password is changed through PUT /users/<id>', async () => {
    const reg = await h.request('POST', '/1.1/users', { body: { username: 'eli', password: 'old-pw' } });
    const res = await h.request('PUT', `/1.1/users/${reg.body.objectId}`, { session: reg.body.sessionToken, body: { password: 'new-pw' } });
    expect(res.status).toBe(200);
    expect(res.body.sessionToken).toEqual(expect.any(String));
    expect(res.body.sessionToken).not.toBe(reg.body.sessionToken);
    expect((await h.request('PUT', `/1.1/users/${reg.body.objectId}`, { session: reg.body.sessionToken, body: { x: 1 } })).status).toBe(403);
  });
});
