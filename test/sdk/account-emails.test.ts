import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { idOf, initSdk, type Sdk, uniqueName } from '../support/sdk-client.ts';
import { startSmtpSink, type ReceivedMail, type SmtpSink } from '../support/smtp-sink.ts';
import { startTestHerald, type TestHerald } from '../support/test-herald.ts';

/**
 * The hosted service's JavaScript SDK asks Herald for verification and
 * password-reset mail; the mail is checked where it lands, at a real SMTP
 * server, and its links are followed as the person would.
 */
let h: TestHerald;
let sink: SmtpSink;
let AV: Sdk;

beforeAll(async () => {
  sink = await startSmtpSink();
  h = await startTestHerald({
    settings: { emailVerification: true },
    mail: { from: 'Accounts <accounts@example.com>', smtp: { host: '127.0.0.1', port: sink.port, secure: false } },
  });
  AV = initSdk(h);
});
afterAll(async () => {
  await h?.close();
  await sink?.close();
});
beforeEach(async () => {
  await AV.User.logOut();
});


const read = new Set<ReceivedMail>();
/** The next message to `to` that the test has not read yet. */
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

async function signUp(email: string, password = 'sign-up-pass-1') {
  const user = new AV.User();
  user.setUsername(email.split('@')[0] ?? email);
  user.setPassword(password);
  user.setEmail(email);
  return user.signUp();
}

async function stored(objectId: string) {
  const res = await h.request('GET', `/1.1/users/${objectId}`, { master: true });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body;
}

/** Lets the once-a-minute limit on mail to one address pass (within the SDK's signature window). */
function afterAMinute(): void {
  h.clock.advance(61_000);
}

describe('email verification', () => {
  it('mails a verification link through SMTP when the SDK signs a user up with an email', async () => {
    const email = `${uniqueName('ann')}@example.com`;
    const user = await signUp(email);
    const mail = await nextMail(email);
    expect(mail.from).toBe('accounts@example.com');
    expect(linkIn(mail, 'verifyEmail')).toBeTruthy();
    expect((await stored(idOf(user))).emailVerified).toBe(false);
  });

  it('mails a new link on requestEmailVerify; opening it verifies the address in the store', async () => {
    const email = `${uniqueName('bea')}@example.com`;
    const user = await signUp(email);
    await nextMail(email);
    afterAMinute();

    await AV.User.requestEmailVerify(email);
    const link = linkIn(await nextMail(email), 'verifyEmail');
    const page = await fetch(link);
    expect(page.status).toBe(200);
    expect(await page.text()).toContain(email);
    expect((await stored(idOf(user))).emailVerified).toBe(true);
  });

  it('keeps the SDK session and the password chosen at sign-up once the address is verified', async () => {
    const email = `${uniqueName('cal')}@example.com`;
    const user = await signUp(email, 'cal-pass-123');
    const link = linkIn(await nextMail(email), 'verifyEmail');
    expect((await fetch(link)).status).toBe(200);

    await user.fetch();
    expect(user.get('emailVerified')).toBe(true);
    await AV.User.logOut();
    const back = await AV.User.logIn(user.getUsername(), 'cal-pass-123');
    expect(back.id).toBe(user.id);
    expect(back.get('emailVerified')).toBe(true);
  });

  it('surfaces an unknown address (205), a missing one (204) and a second request within a minute (429), mailing nothing', async () => {
    const email = `${uniqueName('dee')}@example.com`;
    await signUp(email);
    await nextMail(email);
    afterAMinute();
    await AV.User.requestEmailVerify(email);
    await nextMail(email);
    const sent = sink.messages.length;

    await expect(AV.User.requestEmailVerify(email)).rejects.toMatchObject({ code: 429 });
    await expect(AV.User.requestEmailVerify(`${uniqueName('nobody')}@example.com`)).rejects.toMatchObject({ code: 205 });
    await expect(AV.User.requestEmailVerify('')).rejects.toMatchObject({ code: 204 });
    expect(sink.messages.length).toBe(sent);
  });
});

describe('password reset', () => {
  it('mails a reset link on requestPasswordReset; the password set through its form is the one the SDK logs in with', async () => {
    const email = `${uniqueName('eve')}@example.com`;
    const user = await signUp(email, 'forgotten-pass-1');
    await nextMail(email);
    await AV.User.logOut();

    await AV.User.requestPasswordReset(email);
    const mail = await nextMail(email);
    expect(mail.from).toBe('accounts@example.com');
    const link = linkIn(mail, 'resetPassword');
    const form = await fetch(link);
    expect(form.status).toBe(200);
    const posted = await fetch(link, { method: 'POST', body: new URLSearchParams({ password: 'chosen-again-2', confirm: 'chosen-again-2' }) });
    expect(posted.status).toBe(200);

    await expect(AV.User.logIn(user.getUsername(), 'forgotten-pass-1')).rejects.toMatchObject({ code: 210 });
    const back = await AV.User.logIn(user.getUsername(), 'chosen-again-2');
    expect(back.id).toBe(user.id);
    // The link proved the address too.
    expect((await stored(idOf(user))).emailVerified).toBe(true);
  });

  it('surfaces an unknown address as 205 and mails nothing', async () => {
    const sent = sink.messages.length;
    await expect(AV.User.requestPasswordReset(`${uniqueName('nobody')}@example.com`)).rejects.toMatchObject({ code: 205 });
    expect(sink.messages.length).toBe(sent);
  });
});
