import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestHerald, type TestHerald } from '../support/test-herald.ts';

let h: TestHerald;
beforeAll(async () => {
  h = await startTestHerald();
});
afterAll(() => h.close());

let counter = 0;
async function newUser(extra: Record<string, unknown> = {}) {
  const n = `${Date.now().toString(36)}${counter++}`;
  const fields = { username: `bob${n}`, password: 'right-pass', email: `bob${n}@example.com`, mobilePhoneNumber: `+4478${String(Date.now()).slice(-7)}${counter % 10}`, ...extra };
  const res = await h.request('POST', '/1.1/users', { body: fields });
  expect(res.status).toBe(201);
  return { ...fields, objectId: res.body.objectId as string, sessionToken: res.body.sessionToken as string };
}

const minutes = (n: number) => n * 60 * 1000;

describe('login', () => {
  it.each(['username', 'email', 'mobilePhoneNumber'] as const)('logs in by %s and password, answering every field but the password', async (field) => {
    const user = await newUser({ nickname: 'bobby' });
    const res = await h.request('POST', '/1.1/login', { body: { [field]: user[field], password: 'right-pass' } });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      objectId: user.objectId,
      username: user.username,
      email: user.email,
      mobilePhoneNumber: user.mobilePhoneNumber,
      sessionToken: user.sessionToken,
      emailVerified: null,
      mobilePhoneVerified: false,
      nickname: 'bobby',
    });
    expect(res.body.createdAt).toBeTruthy();
    expect(res.body.updatedAt).toBeTruthy();
    expect(res.body).not.toHaveProperty('password');
    expect(Object.keys(res.body).some((key) => key.startsWith('_'))).toBe(false);
  });

  it('keeps the session token stable across logins', async () => {
    const user = await newUser();
    const first = await h.request('POST', '/1.1/login', { body: { username: user.username, password: 'right-pass' } });
    const second = await h.request('POST', '/1.1/login', { body: { username: user.username, password: 'right-pass' } });
    expect(first.body.sessionToken).toBe(user.sessionToken);
    expect(second.body.sessionToken).toBe(user.sessionToken);
  });

  it.each([
    ['a wrong password', (u: { username: string }) => ({ username: u.username, password: 'wrong' }), 210],
    ['an unknown username', () => ({ username: 'nobody-at-all', password: 'x' }), 211],
    ['an unknown email', () => ({ email: 'nobody@example.com', password: 'x' }), 205],
    ['an unknown mobile number', () => ({ mobilePhoneNumber: '+100000000', password: 'x' }), 213],
    ['no identifier', () => ({ password: 'x' }), 200],
    ['no password', (u: { username: string }) => ({ username: u.username }), 201],
    ['two identifiers', (u: { username: string; email: string }) => ({ username: u.username, email: u.email, password: 'x' }), 1],
    ['a non-string password', (u: { username: string }) => ({ username: u.username, password: 5 }), 111],
  ])('refuses %s', async (_name, body, code) => {
    const user = await newUser();
    const res = await h.request('POST', '/1.1/login', { body: body(user) });
    expect(res.status).toBe(400);
    expect(res.body.code).toBe(code);
  });
});

describe('account lock', () => {
  it('locks after more than 6 failures in 15 minutes, refusing even correct credentials and the master key', async () => {
    const user = await newUser();
    for (let i = 0; i < 6; i++) {
      const res = await h.request('POST', '/1.1/login', { body: { username: user.username, password: 'wrong' } });
      expect(res.body.code).toBe(210);
      h.clock.advance(minutes(1));
    }
    const seventh = await h.request('POST', '/1.1/login', { body: { username: user.username, password: 'wrong' } });
    expect(seventh.status).toBe(400);
    expect(seventh.body.code).toBe(219);

    const correct = await h.request('POST', '/1.1/login', { body: { username: user.username, password: 'right-pass' } });
    expect(correct.body.code).toBe(219);
    const master = await h.request('POST', '/1.1/login', { body: { email: user.email, password: 'right-pass' }, master: true });
    expect(master.body.code).toBe(219);

    h.clock.advance(minutes(14));
    expect((await h.request('POST', '/1.1/login', { body: { username: user.username, password: 'right-pass' } })).body.code).toBe(219);
    h.clock.advance(minutes(1) + 1);
    const after = await h.request('POST', '/1.1/login', { body: { username: user.username, password: 'right-pass' } });
    expect(after.status).toBe(200);
    expect(after.body.objectId).toBe(user.objectId);
  });

  it('does not lock when the failures are spread over more than 15 minutes', async () => {
    const user = await newUser();
    for (let i = 0; i < 10; i++) {
      const res = await h.request('POST', '/1.1/login', { body: { username: user.username, password: 'wrong' } });
      expect(res.body.code).toBe(210);
      h.clock.advance(minutes(3));
    }
    expect((await h.request('POST', '/1.1/login', { body: { username: user.username, password: 'right-pass' } })).status).toBe(200);
  });

  it('counts failures per user, whichever identifier was used', async () => {
    const user = await newUser();
    const identifiers = [{ username: user.username }, { email: user.email }, { mobilePhoneNumber: user.mobilePhoneNumber }];
    for (let i = 0; i < 7; i++) {
      await h.request('POST', '/1.1/login', { body: { ...identifiers[i % 3], password: 'wrong' } });
    }
    const other = await newUser();
    expect((await h.request('POST', '/1.1/login', { body: { username: user.username, password: 'right-pass' } })).body.code).toBe(219);
    expect((await h.request('POST', '/1.1/login', { body: { username: other.username, password: 'right-pass' } })).status).toBe(200);
  });
});
