import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSmsWebhook } from '../support/sms-webhook.ts';
import { startTestHerald, type TestHerald } from '../support/test-herald.ts';

let h: TestHerald;
let sms: Awaited<ReturnType<typeof startSmsWebhook>>;
beforeAll(async () => {
  sms = await startSmsWebhook();
  h = await startTestHerald({ sms: { webhookUrl: sms.url, webhookToken: 'provider-secret' } });
});
afterAll(async () => {
  await h.close();
  await sms.close();
});

let counter = 0;
const newNumber = () => `+8613${String(Date.now()).slice(-8)}${counter++ % 10}`;

async function sendCode(number: string): Promise<string> {
  const arrived = sms.next(number);
  const res = await h.request('POST', '/1.1/requestSmsCode', { body: { mobilePhoneNumber: number } });
  expect(res.status).toBe(200);
  const message = await arrived;
  expect(message.code).toMatch(/^\d{6}$/);
  expect(message.text).toContain(message.code);
  expect(message.authorization).toBe('Bearer provider-secret');
  return message.code;
}

/** A code for a number that had one less than a minute ago. */
async function sendCodeLater(number: string): Promise<string> {
  h.clock.advance(61_000);
  return sendCode(number);
}

describe('SMS codes', () => {
  it('sends at most one code per number per minute', async () => {
    const number = newNumber();
    await sendCode(number);
    const again = await h.request('POST', '/1.1/requestSmsCode', { body: { mobilePhoneNumber: number } });
    expect(again.status).toBe(429);
    expect(again.body.code).toBe(429);
    h.clock.advance(61_000);
    await sendCode(number);
  });

  it.each([
    ['no number', {}, 212],
    ['a malformed number', { mobilePhoneNumber: 'call me' }, 127],
  ])('refuses %s', async (_name, body, code) => {
    const res = await h.request('POST', '/1.1/requestSmsCode', { body });
    expect(res.status).toBe(400);
    expect(res.body.code).toBe(code);
  });
});

describe('usersByMobilePhone', () => {
  it('creates a verified user named after the number (201), then logs the same user in (200)', async () => {
    const number = newNumber();
    const created = await h.request('POST', '/1.1/usersByMobilePhone', { body: { mobilePhoneNumber: number, smsCode: await sendCode(number) } });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ username: number, mobilePhoneNumber: number, mobilePhoneVerified: true, sessionToken: expect.any(String) });
    expect(created.headers.get('location')).toBe(`${h.baseUrl}/1.1/users/${created.body.objectId}`);

    h.clock.advance(61_000);
    const again = await h.request('POST', '/1.1/usersByMobilePhone', { body: { mobilePhoneNumber: number, smsCode: await sendCode(number) } });
    expect(again.status).toBe(200);
    expect(again.body.objectId).toBe(created.body.objectId);
    expect(again.body.sessionToken).toBe(created.body.sessionToken);
  });

  it('uses a code once, refuses wrong and expired codes', async () => {
    const number = newNumber();
    const code = await sendCode(number);
    const wrong = await h.request('POST', '/1.1/usersByMobilePhone', { body: { mobilePhoneNumber: number, smsCode: code === '000000' ? '111111' : '000000' } });
    expect(wrong.status).toBe(400);
    const ok = await h.request('POST', '/1.1/usersByMobilePhone', { body: { mobilePhoneNumber: number, smsCode: code, password: 'pw', username: `u${number}` } });
    expect(ok.status).toBe(201);
    expect(ok.body.username).toBe(`u${number}`);
    expect((await h.request('POST', '/1.1/usersByMobilePhone', { body: { mobilePhoneNumber: number, smsCode: code } })).status).toBe(400);
    expect((await h.request('POST', '/1.1/login', { body: { mobilePhoneNumber: number, password: 'pw' } })).status).toBe(200);

    h.clock.advance(61_000);
    const late = await sendCode(number);
    h.clock.advance(10 * 60_000 + 1);
    expect((await h.request('POST', '/1.1/usersByMobilePhone', { body: { mobilePhoneNumber: number, smsCode: late } })).status).toBe(400);
  });
});

describe('login with an SMS code', () => {
  it('logs a user in with mobilePhoneNumber and smsCode and marks the number verified', async () => {
    const number = newNumber();
    const reg = await h.request('POST', '/1.1/users', { body: { username: `p${number}`, password: 'pw', mobilePhoneNumber: number } });
    expect(reg.status).toBe(201);
    const res = await h.request('POST', '/1.1/login', { body: { mobilePhoneNumber: number, smsCode: await sendCode(number) } });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ objectId: reg.body.objectId, mobilePhoneVerified: true });
    // The number was unverified: the code's owner takes the account over (see test/api/account-takeover.test.ts).
    expect(res.body.sessionToken).not.toBe(reg.body.sessionToken);
    const again = await h.request('POST', '/1.1/login', { body: { mobilePhoneNumber: number, smsCode: await sendCodeLater(number) } });
    expect(again.body).toMatchObject({ objectId: reg.body.objectId, sessionToken: res.body.sessionToken });
  });

  it('counts wrong codes towards the account lock', async () => {
    const number = newNumber();
    await h.request('POST', '/1.1/users', { body: { username: `q${number}`, password: 'pw', mobilePhoneNumber: number } });
    const code = await sendCode(number);
    const wrong = code === '123456' ? '654321' : '123456';
    const answers = [];
    for (let i = 0; i < 7; i++) answers.push((await h.request('POST', '/1.1/login', { body: { mobilePhoneNumber: number, smsCode: wrong } })).body.code);
    expect(answers.at(-1)).toBe(219);
    expect((await h.request('POST', '/1.1/login', { body: { mobilePhoneNumber: number, smsCode: code } })).body.code).toBe(219);
  });
});
