import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSmsWebhook, type SmsWebhook } from '../support/sms-webhook.ts';
import { startSmtpSink, type ReceivedMail, type SmtpSink } from '../support/smtp-sink.ts';
import { startTestHerald, type TestHerald } from '../support/test-herald.ts';

let sink: SmtpSink;
let sms: SmsWebhook;
beforeAll(async () => {
  sink = await startSmtpSink();
  sms = await startSmsWebhook();
});
afterAll(async () => {
  await sink?.close();
  await sms?.close();
});

let counter = 0;
const unique = () => `${Date.now().toString(36)}${counter++}`;
const smtp = () => ({ smtp: { host: '127.0.0.1', port: sink.port, secure: false } });

async function mailedLink(h: TestHerald, to: string, kind: 'verifyEmail' | 'resetPassword'): Promise<string> {
  const mail: ReceivedMail = await sink.waitForMessage((m) => m.to.includes(to) && m.text.includes(`/1.1/${kind}/`), 10_000);
  const link = new RegExp(`http://\\S+/1\\.1/${kind}/\\S+`).exec(mail.text)?.[0] ?? '';
  return link.replace(/http:\/\/[^/]+/, h.baseUrl);
}

const postReset = (link: string, password: string) =>
  fetch(link, { method: 'POST', body: new URLSearchParams({ password, confirm: password }), headers: { 'Content-Type': 'application/x-www-form-urlencoded' } });

describe('emailed links', () => {
  let h: TestHerald;
  beforeAll(async () => {
    h = await startTestHerald({ settings: { emailVerification: true }, mail: smtp() });
  });
  afterAll(() => h?.close());

  async function verifiedUser() {
    const email = `links${unique()}@example.com`;
    const username = `links${unique()}`;
    const res = await h.request('POST', '/1.1/users', { body: { username, password: 'first-pass', email } });
    expect(res.status).toBe(201);
    await sink.waitForMessage((m) => m.to.includes(email), 10_000);
    await h.request('PUT', `/1.1/users/${res.body.objectId}`, { master: true, body: { emailVerified: true } });
    return { email, username, objectId: res.body.objectId as string, sessionToken: res.body.sessionToken as string };
  }

  it('refuses a reset link once the email has changed', async () => {
    const user = await verifiedUser();
    await h.request('POST', '/1.1/requestPasswordReset', { body: { email: user.email } });
    const link = await mailedLink(h, user.email, 'resetPassword');
    await h.request('PUT', `/1.1/users/${user.objectId}`, { session: user.sessionToken, body: { email: `moved${unique()}@example.com` } });
    expect((await fetch(link)).status).toBe(400);
    expect((await postReset(link, 'stolen-pass')).status).toBe(400);
    expect((await h.request('POST', '/1.1/login', { body: { username: user.username, password: 'stolen-pass' } })).body.code).toBe(210);
  });

  it('refuses every outstanding reset link once the password has changed', async () => {
    const user = await verifiedUser();
    await h.request('POST', '/1.1/requestPasswordReset', { body: { email: user.email } });
    const link = await mailedLink(h, user.email, 'resetPassword');
    const changed = await h.request('PUT', `/1.1/users/${user.objectId}/updatePassword`, {
      session: user.sessionToken,
      body: { old_password: 'first-pass', new_password: 'second-pass' },
    });
    expect(changed.status).toBe(200);
    expect((await postReset(link, 'stolen-pass')).status).toBe(400);
    expect((await h.request('POST', '/1.1/login', { body: { username: user.username, password: 'second-pass' } })).status).toBe(200);
  });

  it('refuses an outstanding verification link once the password has changed', async () => {
    const email = `verify${unique()}@example.com`;
    const username = `verify${unique()}`;
    const res = await h.request('POST', '/1.1/users', { body: { username, password: 'first-pass', email } });
    const link = await mailedLink(h, email, 'verifyEmail');
    await h.request('PUT', `/1.1/users/${res.body.objectId}`, { session: res.body.sessionToken, body: { password: 'second-pass' } });
    expect((await fetch(link)).status).toBe(400);
    expect((await h.request('GET', `/1.1/users/${res.body.objectId}`, { master: true })).body.emailVerified).toBe(false);
  });

  it('keeps user-chosen text out of the mail: a username cannot pose as instructions', async () => {
    const email = `mailtext${unique()}@example.com`;
    const username = `Support-says-call-http-evil-example${unique()}`;
    expect((await h.request('POST', '/1.1/users', { body: { username, password: 'pw-123456', email } })).status).toBe(201);
    const mail = await sink.waitForMessage((m) => m.to.includes(email), 10_000);
    expect(mail.text).not.toContain(username);
    expect(mail.html).not.toContain(username);
  });
});

describe('usernames', () => {
  let h: TestHerald;
  beforeAll(async () => {
    h = await startTestHerald();
  });
  afterAll(() => h?.close());

  it.each([
    ['a newline', 'alice\nVisit http://evil.example to confirm'],
    ['a carriage return', 'alice\r'],
    ['a tab', 'al\tice'],
    ['a NUL', 'al\u0000ice'],
    ['a right-to-left override', 'alice\u202Egnp.exe'],
    ['a line separator', 'alice\u2028bob'],
  ])('refuses %s, on registration and on update', async (_name, username) => {
    const res = await h.request('POST', '/1.1/users', { body: { username, password: 'pw' } });
    expect(res.status).toBe(400);
    expect(res.body.code).toBe(1);
    const ok = await h.request('POST', '/1.1/users', { body: { username: `plain${unique()}`, password: 'pw' } });
    const update = await h.request('PUT', `/1.1/users/${ok.body.objectId}`, { session: ok.body.sessionToken, body: { username } });
    expect(update.body.code).toBe(1);
  });

  it('accepts letters of any script and emoji', async () => {
    expect((await h.request('POST', '/1.1/users', { body: { username: `Zoë李👩‍💻${unique()}`, password: 'pw' } })).status).toBe(201);
  });
});

describe('protected fields', () => {
  let h: TestHerald;
  beforeAll(async () => {
    h = await startTestHerald({
      settings: { classPermissions: { _User: { find: true, delete: true }, _Installation: { find: false, delete: false } } },
      extraApps: [],
    });
  });
  afterAll(() => h?.close());

  async function person() {
    const fields = { username: `p${unique()}`, password: 'pw', email: `p${unique()}@example.com`, mobilePhoneNumber: `+4470${String(Date.now()).slice(-7)}${counter++ % 10}`, nickname: 'Pat' };
    const res = await h.request('POST', '/1.1/users', { body: fields });
    expect(res.status).toBe(201);
    return { ...fields, objectId: res.body.objectId as string, sessionToken: res.body.sessionToken as string };
  }

  it('hides email and mobile number from other users and the app key, and shows them to the user and the master key', async () => {
    const pat = await person();
    const other = await person();
    for (const options of [{}, { session: other.sessionToken }]) {
      const seen = await h.request('GET', `/1.1/users/${pat.objectId}`, options);
      expect(seen.status).toBe(200);
      expect(seen.body.nickname).toBe('Pat');
      expect(seen.body).not.toHaveProperty('email');
      expect(seen.body).not.toHaveProperty('mobilePhoneNumber');
    }
    expect((await h.request('GET', `/1.1/users/${pat.objectId}`, { session: pat.sessionToken })).body).toMatchObject({ email: pat.email, mobilePhoneNumber: pat.mobilePhoneNumber });
    expect((await h.request('GET', `/1.1/users/${pat.objectId}`, { master: true })).body).toMatchObject({ email: pat.email });
    const listed = await h.request('GET', `/1.1/users?where=${encodeURIComponent(JSON.stringify({ nickname: 'Pat' }))}&keys=email,nickname`);
    expect(listed.status).toBe(200);
    expect(listed.body.results.length).toBeGreaterThan(0);
    for (const user of listed.body.results) expect(user).not.toHaveProperty('email');
  });

  it.each([
    ['match on', { where: JSON.stringify({ email: 'someone@example.com' }) }],
    ['match with $regex on', { where: JSON.stringify({ mobilePhoneNumber: { $regex: '^\\+44' } }) }],
    ['sort on', { order: 'email' }],
  ])('refuses to %s a protected field without the master key', async (_name, params) => {
    const query = new URLSearchParams(params).toString();
    const res = await h.request('GET', `/1.1/users?${query}`);
    expect(res.status).toBe(403);
    expect(res.body.code).toBe(403);
    expect((await h.request('GET', `/1.1/users?${query}`, { master: true })).status).toBe(200);
  });

  it('follows the app setting: no protected fields shows them to everyone', async () => {
    const open = await startTestHerald({ settings: { protectedFields: { _User: [] } } });
    try {
      const res = await open.request('POST', '/1.1/users', { body: { username: 'shown', password: 'pw', email: 'shown@example.com' } });
      expect((await open.request('GET', `/1.1/users/${res.body.objectId}`)).body.email).toBe('shown@example.com');
    } finally {
      await open.close();
    }
  });
});

describe('refusing login with an unverified email, on every login path', () => {
  let h: TestHerald;
  beforeAll(async () => {
    h = await startTestHerald({ settings: { refuseUnverifiedEmailLogin: true }, sms: { webhookUrl: sms.url } });
  });
  afterAll(() => h?.close());

  it('refuses SMS code login and usersByMobilePhone with 216, changing nothing', async () => {
    const number = `+4471${String(Date.now()).slice(-7)}${counter++ % 10}`;
    const reg = await h.request('POST', '/1.1/users', { body: { username: `u${unique()}`, password: 'pw', mobilePhoneNumber: number, email: `u${unique()}@example.com` } });
    expect(reg.status).toBe(201);
    const arrived = sms.next(number);
    await h.request('POST', '/1.1/requestSmsCode', { body: { mobilePhoneNumber: number } });
    const { code } = await arrived;
    expect((await h.request('POST', '/1.1/login', { body: { mobilePhoneNumber: number, smsCode: code } })).body.code).toBe(216);
    h.clock.advance(61_000);
    const again = sms.next(number);
    await h.request('POST', '/1.1/requestSmsCode', { body: { mobilePhoneNumber: number } });
    expect((await h.request('POST', '/1.1/usersByMobilePhone', { body: { mobilePhoneNumber: number, smsCode: (await again).code } })).body.code).toBe(216);
    // Nothing changed: the number is still unverified and the session still works.
    const stored = await h.request('GET', '/1.1/users/me', { session: reg.body.sessionToken });
    expect(stored.status).toBe(200);
    expect(stored.body).toMatchObject({ mobilePhoneVerified: false, sessionToken: reg.body.sessionToken });
  });

  it('refuses a third-party login with 216 for a user with an unverified email', async () => {
    const anonymous = { id: randomUUID() };
    const created = await h.request('POST', '/1.1/users', { body: { authData: { anonymous }, email: `anon${unique()}@example.com` } });
    expect(created.status).toBe(201);
    expect((await h.request('POST', '/1.1/users', { body: { authData: { anonymous } } })).body.code).toBe(216);
  });
});

describe('logs', () => {
  it('masks the secret of a link in the request log of a 503, whatever the case of the path', async () => {
    const lines: string[] = [];
    const { createLogger } = await import('../../src/core/logger.ts');
    // A 503 is logged per request at debug level only (the outage itself is logged once).
    const logger = createLogger({ level: 'debug' }, { write: (line: string) => lines.push(line) } as unknown as NodeJS.WritableStream);
    const h = await startTestHerald({ logger });
    try {
      await h.herald.runtime.store.close();
      const secret = 'abcdefghijklmnopqrstuvwxyz234567';
      for (const path of [`/1.1/verifyEmail/${h.app.id}.${secret}`, `/1.1/VERIFYEMAIL/${h.app.id}.${secret}`, `/1.1/ResetPassword/${h.app.id}.${secret}`]) {
        expect((await fetch(`${h.baseUrl}${path}`)).status).toBe(503);
      }
      expect(lines.filter((line) => /"statusCode":503/.test(line) && line.includes('.[redacted]'))).toHaveLength(3);
      expect(lines.join('\n')).not.toContain(secret);
    } finally {
      await h.close();
    }
  });
});
