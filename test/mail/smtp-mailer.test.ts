import { createServer, type AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import type { SmtpConfig } from '../../src/config/schema.ts';
import { MailDeliveryError } from '../../src/mail/mail-delivery-error.ts';
import { SmtpMailer } from '../../src/mail/smtp-mailer.ts';
import { memoryLogger } from '../support/memory-logger.ts';
import { startSmtpSink, type SmtpSink } from '../support/smtp-sink.ts';

const password = 'hunter2-smtp-secret';

function smtpConfig(port: number, auth = true): SmtpConfig {
  return {
    host: '127.0.0.1',
    port,
    secure: false,
    rejectUnauthorized: true,
    ...(auth ? { user: 'mailer@example.test', pass: password } : {}),
  };
}

const message = {
  to: 'ada@example.test',
  subject: 'Verify your email address for Demo',
  text: 'Open https://herald.example.test/1.1/verifyEmail/abc to verify.',
  html: '<p>Open <a href="https://herald.example.test/1.1/verifyEmail/abc">this link</a> to verify.</p>',
};

/** A port on which nothing listens, so connecting is refused at once. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

describe('SmtpMailer', () => {
  let sink: SmtpSink | undefined;
  let mailer: SmtpMailer | undefined;

  afterEach(async () => {
    await mailer?.close();
    await sink?.close();
    mailer = undefined;
    sink = undefined;
  });

  it('delivers recipient, subject, text and html to the SMTP server after logging in', async () => {
    sink = await startSmtpSink();
    mailer = new SmtpMailer({ from: 'Demo <no-reply@example.test>', smtp: smtpConfig(sink.port), logger: memoryLogger().logger });

    await mailer.send(message);
    const mail = await sink.waitForMessage({ to: 'ada@example.test' });

    expect(mail.to).toEqual(['ada@example.test']);
    expect(mail.envelope).toEqual({ from: 'no-reply@example.test', to: ['ada@example.test'] });
    expect(mail.from).toBe('no-reply@example.test');
    expect(mail.subject).toBe(message.subject);
    expect(mail.text.trim()).toBe(message.text);
    expect(mail.html).toBe(message.html);
    expect(mail.headers.get('auto-submitted')).toBe('auto-generated');
    expect(mail.login).toMatchObject({ username: 'mailer@example.test', password });
  });

  it('sends without logging in when no user is configured', async () => {
    sink = await startSmtpSink();
    mailer = new SmtpMailer({ from: 'no-reply@example.test', smtp: smtpConfig(sink.port, false), logger: memoryLogger().logger });

    await mailer.send(message);
    const mail = await sink.waitForMessage({ to: 'ada@example.test' });

    expect(mail.login).toBeUndefined();
    expect(sink.logins).toEqual([]);
  });

  it('reuses pooled connections and closes them on close()', async () => {
    sink = await startSmtpSink();
    mailer = new SmtpMailer({ from: 'no-reply@example.test', smtp: smtpConfig(sink.port), logger: memoryLogger().logger, maxConnections: 1 });

    await mailer.send({ ...message, to: 'one@example.test' });
    await mailer.send({ ...message, to: 'two@example.test' });
    expect(sink.logins).toHaveLength(1);
    expect(sink.openConnections()).toBe(1);

    await mailer.close();
    await mailer.close();
    await sink.waitForNoConnections();
    await expect(mailer.send(message)).rejects.toThrow(/SMTP delivery failed/);
  });

  it('says SMTP delivery failed, and keeps the credentials out of error and logs, when the login is refused', async () => {
    sink = await startSmtpSink({ acceptLogin: () => false });
    const logs = memoryLogger();
    mailer = new SmtpMailer({ from: 'no-reply@example.test', smtp: smtpConfig(sink.port), logger: logs.logger });

    const error = await mailer.send(message).then(
      () => undefined,
      (reason: unknown) => reason,
    );

    expect(error).toBeInstanceOf(MailDeliveryError);
    const failure = error as MailDeliveryError;
    expect(failure.message).toMatch(/^SMTP delivery failed/);
    expect(failure.smtpCode).toBe(535);
    expect(failure.retryable).toBe(false);
    expect(JSON.stringify({ ...failure, message: failure.message, stack: failure.stack })).not.toContain(password);
    expect(logs.text()).toContain('SMTP delivery failed');
    expect(logs.text()).not.toContain(password);
    expect(sink.messages).toEqual([]);
  });

  it('fails with a retryable SMTP delivery error when the server cannot be reached', async () => {
    mailer = new SmtpMailer({ from: 'no-reply@example.test', smtp: smtpConfig(await closedPort()), logger: memoryLogger().logger });

    const failure = mailer.send(message);

    await expect(failure).rejects.toThrow(/SMTP delivery failed/);
    await expect(failure).rejects.toMatchObject({ code: 503, status: 503, retryable: true });
  });
});
