import { describe, expect, it } from 'vitest';
import { memoryLogger } from '../support/memory-logger.ts';
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
