import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startAppleKeys, type AppleKeys } from '../support/apple-jwks.ts';
import { startSmsWebhook, type SmsWebhook } from '../support/sms-webhook.ts';
import { startSmtpSink, type ReceivedMail, type SmtpSink } from '../support/smtp-sink.ts';
import { redisCoordination, startTestHerald, type TestCoordination, type TestHerald } from '../support/test-herald.ts';

/**
 * Nobody can take an account over before its owner arrives: an unverified
 * email or number is a claim, and when its owner enters the account through
 * it (an SMS sign-in, a password set through a reset link) every credential
 * the entry did not establish stops working. A verification link lands nobody
 * in the account, so it only verifies.
 */
describe.each<[string, () => TestCoordination]>([
  ['the embedded default', () => 'memory'],
  ['Redis coordination', redisCoordination],
])('pre-registration takeover, on %s', (_name, coordination) => {
  let h: TestHerald;
  let sms: SmsWebhook;
  let sink: SmtpSink;
  let appleKeys: AppleKeys;
  beforeAll(async () => {
    sms = await startSmsWebhook();
    sink = await startSmtpSink();
    appleKeys = await startAppleKeys();
    h = await startTestHerald({
      coordination: coordination(),
      settings: { emailVerification: true, authData: { svc_apple: { jwksUrl: appleKeys.url } } },
      sms: { webhookUrl: sms.url },
      mail: { smtp: { host: '127.0.0.1', port: sink.port, secure: false } },
    });
  });
  afterAll(async () => {
    await h?.close();
    await sms?.close();
    await sink?.close();
    await appleKeys?.close();
  });

  let counter = 0;
  const unique = () => `${Date.now().toString(36)}${counter++}`;
  const newNumber = () => `+4475${String(Date.now()).slice(-7)}${String(counter++).padStart(2, '0')}`;
  async function smsCode(number: string): Promise<string> {
    const arrived = sms.next(number);
    expect((await h.request('POST', '/1.1/requestSmsCode', { body: { mobilePhoneNumber: number } })).status).toBe(200);
    return (await arrived).code;
  }
  const read = new Set<ReceivedMail>();
  /** The link of the next mail of this kind to `email` that the test has not read yet. */
  async function mailedLink(email: string, kind: 'verifyEmail' | 'resetPassword'): Promise<string> {
    const mail = await sink.waitForMessage((m) => m.to.includes(email) && m.text.includes(`/1.1/${kind}/`) && !read.has(m), 10_000);
    read.add(mail);
    const link = new RegExp(`http://\\S+/1\\.1/${kind}/\\S+`).exec(mail.text)?.[0] ?? '';
    return link.replace(/http:\/\/[^/]+/, h.baseUrl);
  }
  async function verifyThroughMail(email: string): Promise<void> {
    expect((await fetch(await mailedLink(email, 'verifyEmail'))).status).toBe(200);
  }
  async function resetThroughMail(email: string, password: string): Promise<void> {
    h.clock.advance(61_000);
    expect((await h.request('POST', '/1.1/requestPasswordReset', { body: { email } })).status).toBe(200);
    const target = await mailedLink(email, 'resetPassword');
    const form = new URLSearchParams({ password, confirm: password });
    const done = await fetch(target, { method: 'POST', body: form, headers: { 'Content-Type': 'application/x-www-form-urlencoded' } });
    expect(done.status).toBe(200);
  }

  it("stops the attacker's password and session when the number's owner signs in by SMS", async () => {
    const number = newNumber();
    const attacker = { username: `squatter${unique()}`, password: 'attacker-pass' };
    const registered = await h.request('POST', '/1.1/users', { body: { ...attacker, mobilePhoneNumber: number, lure: 'attacker data' } });
    expect(registered.status).toBe(201);

    const victim = await h.request('POST', '/1.1/usersByMobilePhone', { body: { mobilePhoneNumber: number, smsCode: await smsCode(number) } });
    expect(victim.status).toBe(200);
    expect(victim.body).toMatchObject({ objectId: registered.body.objectId, mobilePhoneVerified: true });
    const saved = await h.request('PUT', `/1.1/users/${victim.body.objectId}`, { session: victim.body.sessionToken, body: { diary: 'private' } });
    expect(saved.status).toBe(200);

    expect((await h.request('POST', '/1.1/login', { body: attacker })).body.code).toBe(210);
    expect((await h.request('GET', '/1.1/users/me', { session: registered.body.sessionToken })).status).toBe(403);
    const owner = await h.request('GET', '/1.1/users/me', { session: victim.body.sessionToken });
    expect(owner.body).toMatchObject({ diary: 'private', lure: 'attacker data', mobilePhoneNumber: number });
  });

  it('removes an unverified email the attacker left on the account, so it cannot be used to reset the password back', async () => {
    const number = newNumber();
    const attackerMail = `attacker${unique()}@example.com`;
    await h.request('POST', '/1.1/users', { body: { username: `sq${unique()}`, password: 'attacker-pass', mobilePhoneNumber: number, email: attackerMail } });
    const victim = await h.request('POST', '/1.1/login', { body: { mobilePhoneNumber: number, smsCode: await smsCode(number) } });
    expect(victim.status).toBe(200);
    expect(victim.body.email).toBeUndefined();
    expect((await h.request('POST', '/1.1/requestPasswordReset', { body: { email: attackerMail } })).body.code).toBe(205);
  });

  it("unlinks the attacker's anonymous login when the email's owner resets the password through the mailed link", async () => {
    const email = `victim${unique()}@example.com`;
    const anonymous = { id: randomUUID() };
    const squatted = await h.request('POST', '/1.1/users', { body: { authData: { anonymous }, email } });
    expect(squatted.status).toBe(201);

    await resetThroughMail(email, 'owner-chosen-pass');

    const again = await h.request('POST', '/1.1/users', { body: { authData: { anonymous } } });
    expect(again.status).toBe(201);
    expect(again.body.objectId).not.toBe(squatted.body.objectId);
    expect((await h.request('GET', '/1.1/users/me', { session: squatted.body.sessionToken })).status).toBe(403);
    const owner = await h.request('POST', '/1.1/login', { body: { email, password: 'owner-chosen-pass' } });
    expect(owner.status).toBe(200);
    expect(owner.body).toMatchObject({ objectId: squatted.body.objectId, emailVerified: true });
    expect(owner.body.authData).toBeUndefined();
  });

  it("unlinks the attacker's anonymous login when the email's owner first opens the verification link, then resets the password", async () => {
    const email = `victim${unique()}@example.com`;
    const anonymous = { id: randomUUID() };
    const squatted = await h.request('POST', '/1.1/users', { body: { authData: { anonymous }, email } });
    expect(squatted.status).toBe(201);

    // The link only verifies: it lands nobody in the account and ends nothing.
    await verifyThroughMail(email);
    expect((await h.request('GET', '/1.1/users/me', { session: squatted.body.sessionToken })).body.emailVerified).toBe(true);
    await resetThroughMail(email, 'owner-chosen-pass');

    const again = await h.request('POST', '/1.1/users', { body: { authData: { anonymous } } });
    expect(again.status).toBe(201);
    expect(again.body.objectId).not.toBe(squatted.body.objectId);
    expect((await h.request('GET', '/1.1/users/me', { session: squatted.body.sessionToken })).status).toBe(403);
    const owner = await h.request('POST', '/1.1/login', { body: { email, password: 'owner-chosen-pass' } });
    expect(owner.body).toMatchObject({ objectId: squatted.body.objectId, emailVerified: true });
    expect(owner.body.authData).toBeUndefined();
  });

  it("stops the attacker's password, session and number when the email's owner opens the verification link and then resets the password", async () => {
    const email = `victim${unique()}@example.com`;
    const attackerNumber = newNumber();
    const attacker = { username: `squatter${unique()}`, password: 'attacker-pass' };
    const squatted = await h.request('POST', '/1.1/users', { body: { ...attacker, email, mobilePhoneNumber: attackerNumber } });
    expect(squatted.status).toBe(201);

    await verifyThroughMail(email);
    // Until the owner enters, the account is the registrant's: a verification link cannot tell the two apart.
    expect((await h.request('POST', '/1.1/login', { body: attacker })).status).toBe(200);
    await resetThroughMail(email, 'owner-chosen-pass');

    expect((await h.request('POST', '/1.1/login', { body: attacker })).body.code).toBe(210);
    expect((await h.request('GET', '/1.1/users/me', { session: squatted.body.sessionToken })).status).toBe(403);
    // The number the attacker left unverified went with the rest: no SMS sign-in back.
    const code = await smsCode(attackerNumber);
    expect((await h.request('POST', '/1.1/login', { body: { mobilePhoneNumber: attackerNumber, smsCode: code } })).body.code).toBe(213);
    const owner = await h.request('POST', '/1.1/login', { body: { email, password: 'owner-chosen-pass' } });
    expect(owner.body).toMatchObject({ objectId: squatted.body.objectId, emailVerified: true });
    expect(owner.body.mobilePhoneNumber).toBeUndefined();
  });

  it('keeps what the owner linked after entering: a later reset only changes the password', async () => {
    const email = `owner${unique()}@example.com`;
    const registered = await h.request('POST', '/1.1/users', { body: { username: `owner${unique()}`, password: 'first-pass', email } });
    expect(registered.status).toBe(201);
    await verifyThroughMail(email);
    await resetThroughMail(email, 'second-pass');
    const entered = await h.request('POST', '/1.1/login', { body: { email, password: 'second-pass' } });
    const anonymous = { id: randomUUID() };
    const linked = await h.request('PUT', `/1.1/users/${registered.body.objectId}`, { session: entered.body.sessionToken, body: { authData: { anonymous } } });
    expect(linked.status).toBe(200);

    await resetThroughMail(email, 'third-pass');
    const viaAnonymous = await h.request('POST', '/1.1/users', { body: { authData: { anonymous } } });
    expect(viaAnonymous.status).toBe(200);
    expect(viaAnonymous.body.objectId).toBe(registered.body.objectId);
    expect((await h.request('POST', '/1.1/login', { body: { email, password: 'third-pass' } })).status).toBe(200);
  });

  it("takes the master key's word: an address it marks verified is settled, and a reset keeps the account's links", async () => {
    const email = `vouched${unique()}@example.com`;
    const anonymous = { id: randomUUID() };
    const registered = await h.request('POST', '/1.1/users', { body: { authData: { anonymous }, email } });
    await verifyThroughMail(email);
    expect((await h.request('PUT', `/1.1/users/${registered.body.objectId}`, { master: true, body: { emailVerified: true } })).status).toBe(200);

    await resetThroughMail(email, 'owner-chosen-pass');
    const viaAnonymous = await h.request('POST', '/1.1/users', { body: { authData: { anonymous } } });
    expect(viaAnonymous.body.objectId).toBe(registered.body.objectId);
  });

  it('never hands an existing account to a third-party login whose identity token carries its email', async () => {
    // The test key server signs every identity token with this email claim.
    const email = 'someone@privaterelay.example';
    const holder = await h.request('POST', '/1.1/users', { body: { username: `holder${unique()}`, password: 'holder-pass', email } });
    expect(holder.status).toBe(201);
    const uid = `001234.${unique()}.0123`;
    const token = await appleKeys.sign({ sub: uid });
    const apple = await h.request('POST', '/1.1/users', { body: { authData: { svc_apple: { uid, identity_token: token, code: 'c' } } } });
    expect(apple.status).toBe(201);
    expect(apple.body.objectId).not.toBe(holder.body.objectId);
    const stored = await h.request('GET', `/1.1/users/${holder.body.objectId}`, { master: true });
    expect(stored.body.authData).toBeUndefined();
    expect((await h.request('GET', '/1.1/users/me', { session: holder.body.sessionToken })).status).toBe(200);
  });

  it('keeps a legitimate user who registered with their own number in their account, with their data, and lets them set a new password', async () => {
    const number = newNumber();
    const username = `legit${unique()}`;
    const registered = await h.request('POST', '/1.1/users', { body: { username, password: 'first-pass', mobilePhoneNumber: number, score: 42 } });
    expect(registered.status).toBe(201);

    const signedIn = await h.request('POST', '/1.1/login', { body: { mobilePhoneNumber: number, smsCode: await smsCode(number) } });
    expect(signedIn.status).toBe(200);
    expect(signedIn.body).toMatchObject({ objectId: registered.body.objectId, username, score: 42, mobilePhoneVerified: true });
    // The password set before the proof no longer works; with no password, none is needed to set one.
    expect((await h.request('POST', '/1.1/login', { body: { username, password: 'first-pass' } })).body.code).toBe(210);
    const set = await h.request('PUT', `/1.1/users/${registered.body.objectId}/updatePassword`, {
      session: signedIn.body.sessionToken,
      body: { new_password: 'second-pass' },
    });
    expect(set.status).toBe(200);
    expect((await h.request('POST', '/1.1/login', { body: { username, password: 'second-pass' } })).status).toBe(200);
    // Once set, changing it needs the old one again.
    const without = await h.request('PUT', `/1.1/users/${registered.body.objectId}/updatePassword`, {
      session: set.body.sessionToken,
      body: { new_password: 'third-pass' },
    });
    expect(without.body.code).toBe(201);

    // The number is verified now: a later SMS sign-in changes nothing.
    h.clock.advance(61_000);
    const later = await h.request('POST', '/1.1/login', { body: { mobilePhoneNumber: number, smsCode: await smsCode(number) } });
    expect(later.body.sessionToken).toBe(set.body.sessionToken);
    expect((await h.request('POST', '/1.1/login', { body: { username, password: 'second-pass' } })).status).toBe(200);
  });
});
