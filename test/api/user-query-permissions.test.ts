import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestHerald, type TestHerald } from '../support/test-herald.ts';

let h: TestHerald;
beforeAll(async () => {
  h = await startTestHerald({ settings: { classPermissions: { _User: { find: true, delete: false } } } });
});
afterAll(() => h.close());

async function newUser(username: string, extra: Record<string, unknown> = {}) {
  const res = await h.request('POST', '/1.1/users', { body: { username, password: 'pw', team: 'blue', ...extra } });
  expect(res.status).toBe(201);
  return { objectId: res.body.objectId as string, sessionToken: res.body.sessionToken as string };
}

describe('user queries opened to clients by the class permission', () => {
  it('lets ordinary keys query, showing only users whose ACL they may read', async () => {
    const visible = await newUser('visible');
    const hidden = await newUser('hidden', { ACL: {} });
    const self = await newUser('private-self');
    await h.request('PUT', `/1.1/users/${self.objectId}`, { session: self.sessionToken, body: { ACL: { [self.objectId]: { read: true, write: true } } } });

    const where = encodeURIComponent(JSON.stringify({ team: 'blue' }));
    const anonymous = await h.request('GET', `/1.1/users?where=${where}&count=1`);
    expect(anonymous.status).toBe(200);
    expect(anonymous.body.results.map((u: { username: string }) => u.username)).toEqual(['visible']);
    expect(anonymous.body.count).toBe(1);

    const asSelf = await h.request('GET', `/1.1/users?where=${where}&order=username`, { session: self.sessionToken });
    expect(asSelf.body.results.map((u: { username: string }) => u.username)).toEqual(['private-self', 'visible']);
    const own = asSelf.body.results.find((u: { objectId: string }) => u.objectId === self.objectId);
    expect(own.sessionToken).toBe(self.sessionToken);
    expect(asSelf.body.results.find((u: { objectId: string }) => u.objectId === visible.objectId)).not.toHaveProperty('sessionToken');

    const master = await h.request('GET', `/1.1/users?where=${where}&count=1&limit=0`, { master: true });
    expect(master.body).toEqual({ results: [], count: 3 });
    expect(hidden.objectId).toBeTruthy();
  });

  it('refuses queries on third-party data from ordinary keys', async () => {
    const where = encodeURIComponent(JSON.stringify({ 'authData.weibo.uid': 'x' }));
    expect((await h.request('GET', `/1.1/users?where=${where}`)).body.code).toBe(105);
    expect((await h.request('GET', `/1.1/users?where=${where}`, { master: true })).status).toBe(200);
  });

  it('makes deleting users master-only when the delete permission is off', async () => {
    const user = await newUser('undeletable');
    const refused = await h.request('DELETE', `/1.1/users/${user.objectId}`, { session: user.sessionToken });
    expect(refused.status).toBe(403);
    expect((await h.request('GET', '/1.1/users/me', { session: user.sessionToken })).status).toBe(200);
    expect((await h.request('DELETE', `/1.1/users/${user.objectId}`, { master: true })).status).toBe(200);
  });
});
