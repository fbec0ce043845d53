import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { duplicateJsonKeys } from '../support/duplicate-json-keys.ts';
import { deviceToken } from '../support/gateways/gateway-fixtures.ts';
import { memoryLogger } from '../support/memory-logger.ts';
import { startPushGatewayFakes } from '../support/push-gateways.ts';
import { startSmtpSink } from '../support/smtp-sink.ts';
import { startTestHerald, type TestHerald } from '../support/test-herald.ts';

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

/** Reads what the outboxes of a test herald's app hold: the mail files' text and the SMS codes. */
async function outboxOf(h: TestHerald): Promise<{ mail: string; codes: Map<string, string> }> {
  const mailDir = join(h.dataDir, 'outbox', 'mail', h.app.id);
  const files = (await readdir(mailDir)).filter((file) => file.endsWith('.eml'));
  const mail = (await Promise.all(files.map((file) => readFile(join(mailDir, file), 'utf8')))).join('\n');
  const codes = new Map<string, string>();
  const sms = await readFile(join(h.dataDir, 'outbox', 'sms', `sms-${h.app.id}.jsonl`), 'utf8');
  for (const line of sms.split('\n').filter(Boolean)) {
    const { to, code } = JSON.parse(line) as { to: string; code: string };
    codes.set(to, code);
  }
  return { mail, codes };
}

/** The secrets of the reset links in outbox mail (quoted-printable may break a line inside a link). */
function resetSecrets(mail: string): string[] {
  const unfolded = mail.replace(/=\r?\n/g, '');
  return [...new Set([...unfolded.matchAll(/\/1\.1\/resetPassword\/[A-Za-z0-9_-]+\.([a-z2-7]{32})/g)].map((match) => match[1] as string))];
}

describe('logs of the outboxes', () => {
  const number = '+4915100000042';

  /** Registers, asks for a reset link and an SMS code, and signs in with the code from the outbox. */
  async function useTheOutboxes(h: TestHerald): Promise<{ secrets: string[]; code: string }> {
    expect((await h.request('POST', '/1.1/users', { body: { username: 'boxed', password: 'pw-123456', email: 'boxed@example.com' } })).status).toBe(201);
    expect((await h.request('POST', '/1.1/requestPasswordReset', { body: { email: 'boxed@example.com' } })).status).toBe(200);
    expect((await h.request('POST', '/1.1/requestSmsCode', { body: { mobilePhoneNumber: number } })).status).toBe(200);
    const { mail, codes } = await outboxOf(h);
    const code = codes.get(number) ?? '';
    expect(code).toMatch(/^\d{6}$/);
    expect((await h.request('POST', '/1.1/usersByMobilePhone', { body: { mobilePhoneNumber: number, smsCode: code } })).status).toBe(201);
    const secrets = resetSecrets(mail);
    expect(secrets).toHaveLength(1);
    return { secrets, code };
  }

  it('never carry link secrets or SMS codes of a configured app without SMTP or a webhook, which is warned about once at start', async () => {
    const logs = memoryLogger('trace');
    const h = await startTestHerald({ logger: logs.logger, coordination: 'memory', settings: { emailVerification: true } });
    try {
      const { secrets, code } = await useTheOutboxes(h);
      await h.close();
      const text = logs.text();
      for (const secret of [...secrets, code]) expect(text).not.toContain(secret);
      // The outboxes' warnings; the sender's, that the app has no push credentials, is another matter.
      const warnings = logs.lines.filter((line) => line.level === 40 && line.app === h.app.id && line.role !== 'sender');
      expect(warnings.map((line) => line.component).sort()).toEqual(['mail', 'sms']);
      expect(logs.lines.filter((line) => line.msg === 'mail written to outbox').length).toBeGreaterThanOrEqual(2);
    } finally {
      await h.close();
    }
  });

  it('carry the links and codes of the development app, for a developer without SMTP or SMS', async () => {
    const logs = memoryLogger('info');
    const h = await startTestHerald({ logger: logs.logger, coordination: 'memory', developmentKeys: true });
    try {
      const { secrets, code } = await useTheOutboxes(h);
      await h.close();
      const text = logs.text();
      for (const secret of [...secrets, code]) expect(text).toContain(secret);
      expect(logs.lines.filter((line) => line.level === 40 && line.app === h.app.id && line.role !== 'sender')).toEqual([]);
    } finally {
      await h.close();
    }
  });
});

describe('log lines', () => {
  it('hold each key once, from start to shutdown, across accounts, mail, SMS, the bus and a push through the gateways', async () => {
    const fakes = await startPushGatewayFakes();
    const logs = memoryLogger('trace');
    const h = await startTestHerald({ logger: logs.logger, push: fakes.appPush, engine: fakes.engine({ installationShards: 4 }), settings: { emailVerification: true } });
    try {
      await h.request('POST', '/1.1/users', { body: { username: 'keys', password: 'pw-123456', email: 'keys@example.com' } });
      await h.request('POST', '/1.1/login', { body: { username: 'keys', password: 'wrong-password' } });
      await h.request('POST', '/1.1/requestSmsCode', { body: { mobilePhoneNumber: '+4915100000043' } });
      await h.request('POST', '/1.1/installations', { body: { deviceType: 'ios', deviceToken: deviceToken(1), channels: ['news'] } });
      await h.request('POST', '/1.1/installations', { body: { deviceType: 'android', installationId: 'android-keys', registrationId: 'reg-keys', vendor: 'fcm', channels: ['news'] } });
      const sent = await h.request('POST', '/1.1/push', { master: true, body: { channels: ['news'], data: { alert: 'Hello' } } });
      expect(sent.status).toBe(201);
      await fakes.apns.waitForDeliveries(1, 10_000);
      await fakes.fcm.waitForDeliveries(1, 10_000);
      await h.close();

      const raw = logs.text().split('\n');
      expect(raw.length).toBeGreaterThan(20);
      const repeated = raw.flatMap((line) => duplicateJsonKeys(line).map((key) => `${key} in ${line.slice(0, 300)}`));
      expect(repeated).toEqual([]);
      // The lines the repeats were seen on are among those read.
      expect(logs.lines.some((line) => line.component === 'mail' && line.app === h.app.id)).toBe(true);
      expect(logs.lines.some((line) => typeof line.groupId === 'string')).toBe(true);
    } finally {
      await h.close();
      await fakes.close();
    }
  });
});
