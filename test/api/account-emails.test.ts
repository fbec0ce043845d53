import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchBrowser } from '../support/browser.ts';
import { startSmtpSink, type ReceivedMail, type SmtpSink } from '../support/smtp-sink.ts';
import { startTestHerald, type TestHerald } from '../support/test-herald.ts';

let h: TestHerald;
let sink: SmtpSink;
let browser: Browser;

beforeAll(async () => {
  sink = await startSmtpSink();
  h = await startTestHerald({
    settings: { emailVerification: true },
    mail: { from: 'Accounts <accounts@example.com>', smtp: { host: '127.0.0.1', port: sink.port, secure: false, user: 'mailer', pass: 'mail-pass' } },
  });
  browser = await launchBrowser();
});
afterAll(async () => {
  await browser?.close();
  await h?.close();
  await sink?.close();
});

let counter = 0;
const newAddress = () => `user${Date.now().toString(36)}${counter++}@example.com`;

/** The next message to `to` that the test has not read yet. */
const read = new Set<ReceivedMail>();
async function nextMail(to: string): Promise<ReceivedMail> {
  const mail = await sink.waitForMessage((m) => m.to.includes(to) && !read.has(m), 10_000);
  read.add(mail);
  return mail;
}

function linkIn(mail: ReceivedMail, kind: 'verifyEmail' | 'resetPassword'): string {
  const match = new RegExp(`${h.baseUrl.replace(/[.:/]/g, '\\$&')}/1\\.1/${kind}/[A-Za-z0-9_.-]+`).exec(mail.text);
  if (!match) throw new Error(`no ${kind} link in: ${mail.text}`);
  return match[0];
}

async function register(email: string, password = 'first-pass') {
  const res = await h.request('POST', '/1.1/users', { body: { username: email.split('@')[0], password, email } });
  expect(res.status).toBe(201);
  return { objectId: res.body.objectId as string, sessionToken: res.body.sessionToken as string, username: email.split('@')[0] as string };
}

describe('email verification', () => {
  it('mails a link at registration through SMTP; opening it in a browser verifies the address once', async () => {
    const email = newAddress();
    const user = await register(email);
    expect((await h.request('GET', '/1.1/users/me', { session: user.sessionToken })).body.emailVerified).toBe(false);

    const mail = await nextMail(email);
    expect(mail.from).toContain('accounts@example.com');
    expect(mail.login).toMatchObject({ username: 'mailer', password: 'mail-pass' });
    const link = linkIn(mail, 'verifyEmail');
    expect(mail.html).toContain(link.replace(/&/g, '&amp;'));

    const page = await browser.newPage();
    const first = await page.goto(link);
    expect(first?.status()).toBe(200);
    await expect.poll(() => page.textContent('body'), { timeout: 15_000, message: 'the page body naming the address' }).toContain(email);
    expect(await page.textContent('h1')).toMatch(/verified/i);
    expect((await h.request('GET', `/1.1/users/${user.objectId}`, { master: true })).body.emailVerified).toBe(true);
    // A verification link lands nobody in the account: it ends nothing.
    expect((await h.request('GET', '/1.1/users/me', { session: user.sessionToken })).body).toMatchObject({ objectId: user.objectId, emailVerified: true });

    const second = await page.goto(link);
    expect(second?.status()).toBe(400);
    expect(await page.textContent('body')).toMatch(/invalid|expired|already/i);
    await page.close();
  });

  it('keeps the password chosen at registration: after opening the mailed link in a browser, the user logs in with it', async () => {
    const email = newAddress();
    const user = await register(email, 'chosen-at-sign-up');
    const link = linkIn(await nextMail(email), 'verifyEmail');

    const page = await browser.newPage();
    expect((await page.goto(link))?.status()).toBe(200);
    await expect.poll(() => page.textContent('h1'), { timeout: 15_000, message: 'the verified page' }).toMatch(/verified/i);
    expect(await page.textContent('body')).not.toMatch(/choose a password/i);
    await page.close();

    const login = await h.request('POST', '/1.1/login', { body: { username: user.username, password: 'chosen-at-sign-up' } });
    expect(login.status, JSON.stringify(login.body)).toBe(200);
    expect(login.body).toMatchObject({ objectId: user.objectId, email, emailVerified: true });
    expect((await h.request('POST', '/1.1/login', { body: { email, password: 'chosen-at-sign-up' } })).status).toBe(200);
  });

  it('resets emailVerified when the email changes, mails the new address, and voids links to the old one', async () => {
    const email = newAddress();
    const user = await register(email);
    const oldLink = linkIn(await nextMail(email), 'verifyEmail');
    const changed = newAddress();
    const res = await h.request('PUT', `/1.1/users/${user.objectId}`, { session: user.sessionToken, body: { email: changed } });
    expect(res.status).toBe(200);
    expect((await h.request('GET', '/1.1/users/me', { session: user.sessionToken })).body).toMatchObject({ email: changed, emailVerified: false });
    const newLink = linkIn(await nextMail(changed), 'verifyEmail');

    const page = await browser.newPage();
    expect((await page.goto(oldLink))?.status()).toBe(400);
    expect((await page.goto(newLink))?.status()).toBe(200);
    await page.close();
    expect((await h.request('GET', `/1.1/users/${user.objectId}`, { master: true })).body).toMatchObject({ email: changed, emailVerified: true });
  });

  it('sends a new link on requestEmailVerify and refuses unknown or missing addresses', async () => {
    const email = newAddress();
    await register(email);
    await nextMail(email);
    h.clock.advance(61_000);
    const res = await h.request('POST', '/1.1/requestEmailVerify', { body: { email } });
    expect(res.status).toBe(200);
    expect(linkIn(await nextMail(email), 'verifyEmail')).toBeTruthy();
    expect((await h.request('POST', '/1.1/requestEmailVerify', { body: { email } })).body.code).toBe(429);
    expect((await h.request('POST', '/1.1/requestEmailVerify', { body: { email: 'nobody@example.com' } })).body.code).toBe(205);
    expect((await h.request('POST', '/1.1/requestEmailVerify', { body: {} })).body.code).toBe(204);
    expect((await h.request('POST', '/1.1/requestEmailVerify', { body: { email: 'nope' } })).body.code).toBe(125);
  });

  it('lets links expire after one week', async () => {
    const email = newAddress();
    const user = await register(email);
    const link = linkIn(await nextMail(email), 'verifyEmail');
    h.clock.advance(7 * 24 * 3600 * 1000 + 1000);
    const page = await browser.newPage();
    expect((await page.goto(link))?.status()).toBe(400);
    await page.close();
    expect((await h.request('GET', '/1.1/users/me', { session: user.sessionToken })).body.emailVerified).toBe(false);
  });
});

describe('password reset', () => {
  it('mails a link to a form that sets the new password in a browser; the link works once and old sessions end', async () => {
    const email = newAddress();
    const user = await register(email);
    await nextMail(email);
    const res = await h.request('POST', '/1.1/requestPasswordReset', { body: { email } });
    expect(res.status).toBe(200);
    const link = linkIn(await nextMail(email), 'resetPassword');

    const page = await browser.newPage();
    expect((await page.goto(link))?.status()).toBe(200);
    expect(await page.textContent('body')).toContain(user.username);
    await page.fill('#password', 'brand-new-pass');
    await page.fill('#confirm', 'different-pass');
    await Promise.all([page.waitForNavigation(), page.click('button[type=submit], input[type=submit]')]);
    expect(await page.textContent('body')).toMatch(/match/i);

    await page.fill('#password', 'brand-new-pass');
    await page.fill('#confirm', 'brand-new-pass');
    await Promise.all([page.waitForNavigation(), page.click('button[type=submit], input[type=submit]')]);
    expect(await page.textContent('h1')).toMatch(/password/i);
    expect(await page.textContent('body')).toMatch(/changed|reset|updated/i);

    expect((await h.request('POST', '/1.1/login', { body: { email, password: 'first-pass' } })).body.code).toBe(210);
    const login = await h.request('POST', '/1.1/login', { body: { email, password: 'brand-new-pass' } });
    expect(login.status).toBe(200);
    expect(login.body.sessionToken).not.toBe(user.sessionToken);
    expect((await h.request('GET', '/1.1/users/me', { session: user.sessionToken })).status).toBe(403);

    expect((await page.goto(link))?.status()).toBe(400);
    expect(await page.textContent('body')).toMatch(/invalid|expired|already/i);
    await page.close();
  });

  it('refuses to mail unknown or malformed addresses', async () => {
    expect((await h.request('POST', '/1.1/requestPasswordReset', { body: { email: 'ghost@example.com' } })).body.code).toBe(205);
    expect((await h.request('POST', '/1.1/requestPasswordReset', { body: { email: 42 } })).body.code).toBe(111);
    expect((await h.request('POST', '/1.1/requestPasswordReset', { rawBody: 'email=x' })).body.code).toBe(107);
  });

  it('shows an invalid-link page for a forged token', async () => {
    const page = await browser.newPage();
    const res = await page.goto(`${h.baseUrl}/1.1/resetPassword/${h.app.id}.${'a'.repeat(32)}`);
    expect(res?.status()).toBe(400);
    expect(await page.textContent('body')).toMatch(/invalid|expired|already/i);
    await page.close();
  });
});

describe('refusing login with an unverified email', () => {
  it('answers 216 until the address is verified', async () => {
    const strictSink = sink;
    const strict = await startTestHerald({
      settings: { emailVerification: true, refuseUnverifiedEmailLogin: true },
      mail: { smtp: { host: '127.0.0.1', port: strictSink.port, secure: false } },
    });
    try {
      const email = newAddress();
      const reg = await strict.request('POST', '/1.1/users', { body: { username: 'strict', password: 'pw', email } });
      expect(reg.status).toBe(201);
      const refused = await strict.request('POST', '/1.1/login', { body: { username: 'strict', password: 'pw' } });
      expect(refused.body.code).toBe(216);
      const mail = await nextMail(email);
      const link = /http:\/\/\S+\/1\.1\/verifyEmail\/\S+/.exec(mail.text)?.[0] ?? '';
      const page = await browser.newPage();
      expect((await page.goto(link.replace(/http:\/\/[^/]+/, strict.baseUrl)))?.status()).toBe(200);
      await expect.poll(() => page.textContent('h1'), { timeout: 15_000, message: 'the verified page' }).toMatch(/verified/i);
      await page.close();
      // The password chosen at sign-up is the one that logs in once the address is verified.
      const login = await strict.request('POST', '/1.1/login', { body: { username: 'strict', password: 'pw' } });
      expect(login.status, JSON.stringify(login.body)).toBe(200);
      expect(login.body).toMatchObject({ objectId: reg.body.objectId, emailVerified: true });
    } finally {
      await strict.close();
    }
  });
});
