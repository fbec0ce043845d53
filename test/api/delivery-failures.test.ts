import { createServer } from 'node:net';
import { describe, expect, it } from 'vitest';
import { startSmsWebhook } from '../support/sms-webhook.ts';
import { startTestHerald } from '../support/test-herald.ts';

/** A loopback port with nothing listening on it. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  if (address === null || typeof address === 'string') throw new Error('no port');
  return address.port;
}

describe('when a delivery channel fails', () => {
  it('answers 503 to requestPasswordReset while SMTP is down, and lets the person retry at once', async () => {
    const h = await startTestHerald({ mail: { smtp: { host: '127.0.0.1', port: await closedPort(), secure: false } } });
    try {
      const reg = await h.request('POST', '/1.1/users', { body: { username: 'mailless', password: 'pw', email: 'mailless@example.com' } });
      expect(reg.status).toBe(201);
      for (let attempt = 0; attempt < 2; attempt++) {
        const res = await h.request('POST', '/1.1/requestPasswordReset', { body: { email: 'mailless@example.com' } });
        expect(res.status).toBe(503);
        expect(res.body).toEqual({ code: 503, error: expect.stringMatching(/SMTP delivery failed/) });
      }
      const verify = await h.request('POST', '/1.1/requestEmailVerify', { body: { email: 'mailless@example.com' } });
      expect(verify.status).toBe(503);
      expect((await h.request('POST', '/1.1/login', { body: { username: 'mailless', password: 'pw' } })).status).toBe(200);
    } finally {
      await h.close();
    }
    // The test starts its own Herald, on Cassandra and Kafka in the distributed run: a loaded CI machine took over 30 s.
  }, 90_000);

  it('answers the SMS provider failure to requestSmsCode and accepts a new request right away', async () => {
    const sms = await startSmsWebhook();
    const h = await startTestHerald({ sms: { webhookUrl: sms.url } });
    try {
      sms.failNext(502);
      const failed = await h.request('POST', '/1.1/requestSmsCode', { body: { mobilePhoneNumber: '+15550001111' } });
      expect(failed.status).toBe(503);
      expect(failed.body.code).toBe(503);
      const arrived = sms.next('+15550001111');
      const retried = await h.request('POST', '/1.1/requestSmsCode', { body: { mobilePhoneNumber: '+15550001111' } });
      expect(retried.status).toBe(200);
      const { code } = await arrived;
      const signed = await h.request('POST', '/1.1/usersByMobilePhone', { body: { mobilePhoneNumber: '+15550001111', smsCode: code } });
      expect(signed.status).toBe(201);
    } finally {
      await h.close();
      await sms.close();
    }
  });
});
