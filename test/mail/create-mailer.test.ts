import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { appSchema } from '../../src/config/schema.ts';
import { createMailer } from '../../src/mail/create-mailer.ts';
import { OutboxMailer } from '../../src/mail/outbox-mailer.ts';
import { SmtpMailer } from '../../src/mail/smtp-mailer.ts';
import { memoryLogger } from '../support/memory-logger.ts';
import { startSmtpSink } from '../support/smtp-sink.ts';

describe('createMailer', () => {
  const base = { id: 'demo', key: 'app-key-123', masterKey: 'master-key-123' };

  const link = 'http://localhost:3000/1.1/resetPassword/demo.abcdefghijklmnopqrstuvwxyz234567';

  it('writes to <outboxDir>/mail/<appId> when no SMTP server is configured, warns once that mail goes nowhere, and never logs its links', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'herald-outbox-'));
    try {
      const logs = memoryLogger('trace');
      const mailer = createMailer(appSchema.parse(base), { outboxDir: dir, logger: logs.logger });
      expect(mailer).toBeInstanceOf(OutboxMailer);
      const warnings = () => logs.lines.filter((line) => line.level === 40);
      expect(warnings()).toHaveLength(1);
      expect(warnings()[0]).toMatchObject({ app: 'demo', component: 'mail', outbox: join(dir, 'mail', 'demo') });
      expect(warnings()[0]?.msg).toMatch(/no SMTP server configured.*outbox.*not logged/);
      await mailer.send({ to: 'ada@example.test', subject: 's', text: `Open ${link}`, html: '<p>h</p>' });
      await mailer.send({ to: 'bob@example.test', subject: 's', text: `Open ${link}`, html: '<p>h</p>' });
      expect(await readdir(join(dir, 'mail', 'demo'))).toHaveLength(2);
      expect(warnings()).toHaveLength(1);
      expect(logs.text()).not.toContain('abcdefghijklmnopqrstuvwxyz234567');
      await mailer.close();
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('logs the links of the development app, without the warning', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'herald-outbox-'));
    try {
      const logs = memoryLogger('info');
      const mailer = createMailer(appSchema.parse(base), { outboxDir: dir, logger: logs.logger, development: true });
      await mailer.send({ to: 'ada@example.test', subject: 's', text: `Open ${link}`, html: '<p>h</p>' });
      expect(logs.lines).toMatchObject([{ level: 30, app: 'demo', component: 'mail', links: [link] }]);
      await mailer.close();
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('uses SMTP when mail.smtp is configured, delivering to that server and not to the outbox', async () => {
    const sink = await startSmtpSink();
    try {
      const app = appSchema.parse({ ...base, mail: { smtp: { host: '127.0.0.1', port: sink.port } } });
      const mailer = createMailer(app, { outboxDir: '/nonexistent', logger: memoryLogger().logger });
      expect(mailer).toBeInstanceOf(SmtpMailer);
      await mailer.send({ to: 'ada@example.test', subject: 'Sent over SMTP', text: 't', html: '<p>h</p>' });
      expect((await sink.waitForMessage({ to: 'ada@example.test' })).subject).toBe('Sent over SMTP');
      await mailer.close();
    } finally {
      await sink.close();
    }
  });
});
