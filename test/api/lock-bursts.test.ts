import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSmsWebhook, type SmsWebhook } from '../support/sms-webhook.ts';
import { redisCoordination, startTestHerald, testApp, type TestCoordination, type TestHerald } from '../support/test-herald.ts';

/**
 * The account lock under bursts: every credential check is reserved before it
 * is made, so however many requests arrive at once at most 6 credentials are
 * checked per 15 minutes, on one node or several; and only failures lock, so
 * a burst of right ones all get in.
 */
describe.each<[string, () => TestCoordination]>([
  ['the embedded default', () => 'memory'],
  ['Redis coordination', redisCoordination],
])('account lock under concurrent requests, on %s', (_name, coordination) => {
  let h: TestHerald;
  let sms: SmsWebhook;
  beforeAll(async () => {
    sms = await startSmsWebhook();
    h = await startTestHerald({ coordination: coordination(), sms: { webhookUrl: sms.url } });
  });
  afterAll(async () => {
    await h?.close();
    await sms?.close();
  });

  let counter = 0;
  async function newUser(extra: Record<string, unknown> = {}) {
    const username = `burst${Date.now().toString(36)}${counter++}`;
    const res = await h.request('POST', '/1.1/users', { body: { username, password: 'right-pass', ...extra } });
    expect(res.status).toBe(201);
    return { username, objectId: res.body.objectId as string, sessionToken: res.body.sessionToken as string };
  }
  const codes = (answers: { body: { code?: number } }[]) => answers.map((answer) => answer.body.code);

  it('checks at most 6 of 100 concurrent wrong passwords, answers the rest 219, and then refuses the right one', async () => {
    const user = await newUser();
    const answers = await Promise.all(Array.from({ length: 100 }, () => h.request('POST', '/1.1/login', { body: { username: user.username, password: 'wrong' } })));
    const wrong = codes(answers).filter((code) => code === 210).length;
    expect(wrong).toBeGreaterThan(0);
    expect(wrong).toBeLessThanOrEqual(6);
    expect(codes(answers).filter((code) => code === 219)).toHaveLength(100 - wrong);
    expect((await h.request('POST', '/1.1/login', { body: { username: user.username, password: 'right-pass' } })).body.code).toBe(219);
  });

  it('lets the right password in only when it is among the first 6 of a burst of 150', async () => {
    const user = await newUser();
    const bodies = Array.from({ length: 150 }, (_, i) => ({ username: user.username, password: i === 149 ? 'right-pass' : 'wrong' }));
    const answers = await Promise.all(bodies.map((body) => h.request('POST', '/1.1/login', { body })));
    const checked = answers.filter((answer) => answer.status === 200 || answer.body.code === 210);
    expect(checked.length).toBeLessThanOrEqual(6);
    // Whether the right one got in depends on the order of arrival; it can only if it was checked.
    const rightAnswer = answers[149];
    expect(rightAnswer?.status === 200 ? checked.includes(rightAnswer) : rightAnswer?.body.code === 219 || rightAnswer?.body.code === 210).toBe(true);
  });

  it('lets in all of 12 concurrent logins with the right password, an app retrying, and locks nothing', async () => {
    const user = await newUser();
    const answers = await Promise.all(
      Array.from({ length: 12 }, () => h.request('POST', '/1.1/login', { body: { username: user.username, password: 'right-pass' } })),
    );
    expect(answers.map((answer) => answer.status)).toEqual(Array.from({ length: 12 }, () => 200));
    // Nothing was left counted: six wrong passwords are judged, the seventh attempt locks.
    for (let i = 0; i < 6; i++) {
      expect((await h.request('POST', '/1.1/login', { body: { username: user.username, password: 'wrong' } })).body.code).toBe(210);
    }
    expect((await h.request('POST', '/1.1/login', { body: { username: user.username, password: 'right-pass' } })).body.code).toBe(219);
  });

  it('puts the old password of updatePassword under the same lock', async () => {
    const user = await newUser();
    const answers = await Promise.all(
      Array.from({ length: 40 }, () =>
        h.request('PUT', `/1.1/users/${user.objectId}/updatePassword`, { session: user.sessionToken, body: { old_password: 'wrong', new_password: 'new-pass' } }),
      ),
    );
    expect(codes(answers).filter((code) => code === 210).length).toBeLessThanOrEqual(6);
    expect(codes(answers).filter((code) => code === 219).length).toBeGreaterThanOrEqual(34);
    expect((await h.request('POST', '/1.1/login', { body: { username: user.username, password: 'right-pass' } })).body.code).toBe(219);
    const withRightOld = await h.request('PUT', `/1.1/users/${user.objectId}/updatePassword`, {
      session: user.sessionToken,
      body: { old_password: 'right-pass', new_password: 'new-pass' },
    });
    expect(withRightOld.body.code).toBe(219);
  });

  it('compares at most 5 of 100 concurrent wrong SMS codes, so the real code is dead afterwards', async () => {
    const number = `+4477${String(Date.now()).slice(-8)}${counter++ % 10}`;
    await newUser({ mobilePhoneNumber: number });
    const arrived = sms.next(number);
    expect((await h.request('POST', '/1.1/requestSmsCode', { body: { mobilePhoneNumber: number } })).status).toBe(200);
    const { code } = await arrived;
    const wrongCode = code === '000000' ? '111111' : '000000';
    const answers = await Promise.all(
      Array.from({ length: 100 }, () => h.request('POST', '/1.1/login', { body: { mobilePhoneNumber: number, smsCode: wrongCode } })),
    );
    const compared = codes(answers).filter((answered) => answered === 1).length;
    expect(compared).toBeLessThanOrEqual(6);
    expect(codes(answers).filter((answered) => answered === 219)).toHaveLength(100 - compared);
    const real = await h.request('POST', '/1.1/login', { body: { mobilePhoneNumber: number, smsCode: code } });
    expect(real.status).toBe(400);
  });
});

describe('account lock across two API nodes sharing Redis', () => {
  let a: TestHerald;
  let b: TestHerald;
  beforeAll(async () => {
    const coordination = redisCoordination();
    const app = testApp({ name: 'Shared' });
    a = await startTestHerald({ coordination, app });
    b = await startTestHerald({ coordination, app, dataDir: a.dataDir, clock: a.clock });
  });
  afterAll(async () => {
    await b?.close();
    await a?.close();
  });

  it('checks at most 6 credentials of a burst split over both nodes', async () => {
    const username = `twonode${Date.now().toString(36)}`;
    expect((await a.request('POST', '/1.1/users', { body: { username, password: 'right-pass' } })).status).toBe(201);
    const answers = await Promise.all(
      Array.from({ length: 100 }, (_, i) => (i % 2 === 0 ? a : b).request('POST', '/1.1/login', { body: { username, password: 'wrong' } })),
    );
    const wrong = answers.filter((answer) => answer.body.code === 210).length;
    expect(wrong).toBeLessThanOrEqual(6);
    expect(answers.filter((answer) => answer.body.code === 219)).toHaveLength(100 - wrong);
    for (const node of [a, b]) expect((await node.request('POST', '/1.1/login', { body: { username, password: 'right-pass' } })).body.code).toBe(219);
  });

  it('lets in all of 16 concurrent right-password logins split over both nodes', async () => {
    const username = `tworight${Date.now().toString(36)}`;
    expect((await a.request('POST', '/1.1/users', { body: { username, password: 'right-pass' } })).status).toBe(201);
    const answers = await Promise.all(
      Array.from({ length: 16 }, (_, i) => (i % 2 === 0 ? a : b).request('POST', '/1.1/login', { body: { username, password: 'right-pass' } })),
    );
    expect(answers.map((answer) => answer.body.code ?? answer.status)).toEqual(Array.from({ length: 16 }, () => 200));
  });
});
