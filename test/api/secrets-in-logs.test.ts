import { describe, expect, it } from 'vitest';
import { memoryLogger } from '../support/memory-logger.ts';
import { startSmtpSink } from '../support/smtp-sink.ts';
import { startTestHerald } from '../support/test-herald.ts';

describe('logs', () => {
  it('never carry passwords, hashes, session tokens or keys, even at trace level', async () => {
    const logs = memoryLogger('trace');
    const h = await startTestHerald({ logger: logs.logger, settings: { emailVerification: true } });
    try {
      const password = 'very-secret-password-123';
      const reg = await h.request('POST', '/1.1/users', { body: { username: 'logged', password, email: 'logged@example.com' } });
      expect(reg.status).toBe(201);
      await h.request('POST', '/1.1/login', { body: { username: 'logged', password } });
      await h.request('POST', '/1.1/login', { body: { username: 'logged', password: `${password}-wrong` } });
      await h.request('GET', '/1.1/users/me', { session: reg.body.sessionToken });
      await h.request('PUT', `/1.1/users/${reg.body.objectId}/updatePassword`, { session: reg.body.sessionToken, body: { old_password: password, new_password: `${password}-2` } });
      await h.request('GET', '/1.1/users', { master: true });
      await h.close();

      const text = logs.text();
      expect(logs.lines.length).toBeGreaterThan(5);
      expect(text).toContain('/1.1/users/me');
      for (const secret of [password, reg.body.sessionToken, h.app.key, h.app.masterKey, '$argon2id']) {
        expect(text).not.toContain(secret);
      }
    } finally {
      await h.close();
    }
  });
});

describe('logs of emailed links', () => {
  it('never carry the secret of a link when mail goes through SMTP', async () => {
    const sink = await startSmtpSink();
    const logs = memoryLogger('trace');
    const h = await startTestHerald({ logger: logs.logger, mail: { smtp: { host: '127.0.0.1', port: sink.port, secure: false } } });
    try {
      await h.request('POST', '/1.1/users', { body: { username: 'linked', password: 'pw-123456', email: 'linked@example.com' } });
      expect((await h.request('POST', '/1.1/requestPasswordReset', { body: { email: 'linked@example.com' } })).status).toBe(200);
      const mail = await sink.waitForMessage({ to: 'linked@example.com' }, 10_000);
      const link = /http:\/\/\S+\/1\.1\/resetPassword\/\S+/.exec(mail.text)?.[0] ?? '';
      const secret = link.split('.').at(-1) ?? '';
      expect(secret).toMatch(/^[a-z2-7]{32}$/);
      expect((await fetch(link)).status).toBe(200);
      const posted = await fetch(link, { method: 'POST', headers: { 'Content-Type': 'application/x-www-form-urlencoded' }, body: 'password=new-pass-123&confirm=new-pass-123' });
      expect(posted.status).toBe(200);
      await h.close();
      expect(logs.text()).toContain('/1.1/resetPassword/');
      expect(logs.text()).not.toContain(secret);
    } finally {
      await h.close();
      await sink.close();
    }
  });
});
