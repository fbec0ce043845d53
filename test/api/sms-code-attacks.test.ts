import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSmsWebhook, type SmsWebhook } from '../support/sms-webhook.ts';
import { redisCoordination, startTestHerald, type TestCoordination, type TestHerald } from '../support/test-herald.ts';

const minutes = (n: number) => n * 60_000;

/**
 * SMS codes cannot be guessed (a code dies after 5 wrong tries, a number is
 * throttled after repeated failures, a password login resets neither) and
 * Herald cannot be made to text many numbers (per-number and per-app caps).
 */
describe.each<[string, () => TestCoordination]>([
  ['the embedded default', () => 'memory'],
  ['Redis coordination', redisCoordination],
])('SMS code attacks, on %s', (_name, coordination) => {
  let h: TestHerald;
  let sms: SmsWebhook;
  beforeAll(async () => {
    sms = await startSmsWebhook();
    h = await startTestHerald({
      coordination: coordination(),
      sms: { webhookUrl: sms.url },
      settings: { smsCodes: { maxAttempts: 5, numberFailuresPerHour: 10, perNumberPerDay: 4, perAppPerHour: 20, perAppPerDay: 1000 } },
    });
  });
  afterAll(async () => {
    await h?.close();
    await sms?.close();
  });

  let counter = 0;
  const newNumber = () => `+4478${String(Date.now()).slice(-7)}${String(counter++).padStart(2, '0')}`;
  async function sendCode(number: string): Promise<string> {
    const arrived = sms.next(number);
    const res = await h.request('POST', '/1.1/requestSmsCode', { body: { mobilePhoneNumber: number } });
    expect(res.status).toBe(200);
    return (await arrived).code;
  }
  const wrongFor = (code: string) => (code === '000000' ? '111111' : '000000');
  const smsLogin = (number: string, smsCode: string) => h.request('POST', '/1.1/login', { body: { mobilePhoneNumber: number, smsCode } });
  async function userWithNumber(number: string) {
    const username = `sms${number.slice(1)}`;
    const res = await h.request('POST', '/1.1/users', { body: { username, password: 'right-pass', mobilePhoneNumber: number } });
    expect(res.status).toBe(201);
    return username;
  }

  it('kills a code after 5 wrong tries: the real code no longer works, a new one does', async () => {
    const number = newNumber();
    await userWithNumber(number);
    const code = await sendCode(number);
    for (let i = 0; i < 5; i++) expect((await smsLogin(number, wrongFor(code))).body.code).toBe(1);
    const real = await smsLogin(number, code);
    expect(real.status).toBe(400);
    expect(real.body.code).toBe(1);

    // Past the account's 15-minute window; the number has 6 failures of its 10 an hour.
    h.clock.advance(minutes(16));
    const fresh = await sendCode(number);
    expect((await smsLogin(number, fresh)).status).toBe(200);
  });

  it('does not let a password login reset the tries of a code (the reviewer guessed 120 times this way)', async () => {
    const number = newNumber();
    const username = await userWithNumber(number);
    const code = await sendCode(number);
    for (let round = 0; round < 2; round++) {
      for (let i = 0; i < 3 - round; i++) expect((await smsLogin(number, wrongFor(code))).body.code).toBe(1);
      // The attacker registered the account, so knows its password, which clears the account's failure count.
      expect((await h.request('POST', '/1.1/login', { body: { username, password: 'right-pass' } })).status).toBe(200);
    }
    // 5 wrong tries in all: the code is dead although the account lock never tripped.
    expect((await smsLogin(number, code)).status).toBe(400);
  });

  it('throttles a number after 10 wrong codes in an hour, even with the right code and a clean account window', async () => {
    const number = newNumber();
    await userWithNumber(number);
    for (let round = 0; round < 2; round++) {
      const code = await sendCode(number);
      for (let i = 0; i < 5; i++) expect((await smsLogin(number, wrongFor(code))).body.code).toBe(1);
      h.clock.advance(minutes(16));
    }
    const right = await sendCode(number);
    const throttled = await smsLogin(number, right);
    expect(throttled.body).toEqual({ code: 219, error: 'Too many wrong SMS codes for this number. Try again later.' });
    h.clock.advance(minutes(61));
    const later = await sendCode(number);
    expect((await smsLogin(number, later)).status).toBe(200);
  });

  it('guards usersByMobilePhone the same way when no user holds the number yet', async () => {
    const number = newNumber();
    const code = await sendCode(number);
    const answers = await Promise.all(
      Array.from({ length: 60 }, () => h.request('POST', '/1.1/usersByMobilePhone', { body: { mobilePhoneNumber: number, smsCode: wrongFor(code) } })),
    );
    expect(answers.filter((answer) => answer.body.code === 1).length).toBeLessThanOrEqual(6);
    expect((await h.request('POST', '/1.1/usersByMobilePhone', { body: { mobilePhoneNumber: number, smsCode: code } })).status).toBe(400);
  });

  it('caps the codes one number gets in a day', async () => {
    const number = newNumber();
    for (let i = 0; i < 4; i++) {
      await sendCode(number);
      h.clock.advance(61_000);
    }
    const refused = await h.request('POST', '/1.1/requestSmsCode', { body: { mobilePhoneNumber: number } });
    expect(refused.status).toBe(429);
    expect(refused.body).toMatchObject({ code: 429, error: expect.stringMatching(/in a day/) });
    h.clock.advance(minutes(24 * 60));
    await sendCode(number);
  });

  it('caps the codes the app sends in an hour, under a burst to 30 numbers, and counts the refusals', async () => {
    const before = await refusedCount(h, 'app-hour');
    // Earlier tests of this app sent codes within the hour too: start a fresh hour.
    h.clock.advance(minutes(61));
    const numbers = Array.from({ length: 30 }, newNumber);
    const answers = await Promise.all(numbers.map((mobilePhoneNumber) => h.request('POST', '/1.1/requestSmsCode', { body: { mobilePhoneNumber } })));
    expect(answers.filter((answer) => answer.status === 200)).toHaveLength(20);
    const refused = answers.filter((answer) => answer.status === 429);
    expect(refused).toHaveLength(10);
    expect(refused[0]?.body.error).toMatch(/in an hour/);
    expect(await refusedCount(h, 'app-hour')).toBe(before + 10);
    h.clock.advance(minutes(61));
  });
});

describe('the daily cap of an app', () => {
  it('refuses codes beyond perAppPerDay even when every hour stays under its cap', async () => {
    const sms = await startSmsWebhook();
    const h = await startTestHerald({ sms: { webhookUrl: sms.url }, settings: { smsCodes: { perAppPerHour: 3, perAppPerDay: 5 } } });
    try {
      const statuses: number[] = [];
      for (let i = 0; i < 5; i++) {
        statuses.push((await h.request('POST', '/1.1/requestSmsCode', { body: { mobilePhoneNumber: `+4479000000${i}` } })).status);
        if (i === 2) h.clock.advance(minutes(61));
      }
      expect(statuses).toEqual([200, 200, 200, 200, 200]);
      const refused = await h.request('POST', '/1.1/requestSmsCode', { body: { mobilePhoneNumber: '+44790000009' } });
      expect(refused.body).toMatchObject({ code: 429, error: expect.stringMatching(/in a day/) });
      expect(await refusedCount(h, 'app-day')).toBe(1);
      h.clock.advance(minutes(24 * 60));
      expect((await h.request('POST', '/1.1/requestSmsCode', { body: { mobilePhoneNumber: '+44790000009' } })).status).toBe(200);
    } finally {
      await h.close();
      await sms.close();
    }
  });
});

async function refusedCount(h: TestHerald, reason: string): Promise<number> {
  const text = await (await fetch(`${h.baseUrl}/metrics`)).text();
  const line = text.split('\n').find((row) => row.startsWith('herald_sms_refused_total{') && row.includes(`app="${h.app.id}"`) && row.includes(`reason="${reason}"`));
  return line === undefined ? 0 : Number(line.split(' ').at(-1));
}
