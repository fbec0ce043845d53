import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { simpleParser } from 'mailparser';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { OutboxMailer } from '../../src/mail/outbox-mailer.ts';
import { memoryLogger } from '../support/memory-logger.ts';
import { addressesOf } from '../support/smtp-sink.ts';

const verifyLink = 'http://localhost:3000/1.1/verifyEmail/tok_123?app=demo';
const resetLink = 'https://herald.example.test/1.1/resetPassword/tok_456';

describe('OutboxMailer', () => {
  let dir: string;

  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'herald-outbox-'));
  });

  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('writes each message as an .eml file that a mail parser reads back', async () => {
    const outbox = join(dir, 'mail', 'demo');
    const mailer = new OutboxMailer({ dir: outbox, from: 'Demo <no-reply@example.test>', logger: memoryLogger().logger });

    const sentAt = Date.now();
    await mailer.send({ to: 'ada@example.test', subject: 'Verify your email address', text: `Open ${verifyLink}.`, html: `<p><a href="${verifyLink}">Verify</a></p>` });

    const files = await readdir(outbox);
    expect(files).toHaveLength(1);
    expect(files[0]).toMatch(/^\d{8}T\d{9}Z-\d{4}-[0-9a-f]{8}\.eml$/);
    const mail = await simpleParser(await readFile(join(outbox, files[0] ?? '')));
    expect(addressesOf(mail.to)).toEqual(['ada@example.test']);
    expect(addressesOf(mail.from)).toEqual(['no-reply@example.test']);
    expect(mail.subject).toBe('Verify your email address');
    expect(mail.text?.trim()).toBe(`Open ${verifyLink}.`);
    expect(mail.html).toBe(`<p><a href="${verifyLink}">Verify</a></p>`);
    expect(mail.messageId).toMatch(/^<.+@.+>$/);
    // The Date header is the time of sending (to the second the header carries).
    expect(mail.date?.getTime()).toBeGreaterThanOrEqual(Math.floor(sentAt / 1000) * 1000);
    expect(mail.date?.getTime()).toBeLessThanOrEqual(Date.now());
  });

  it('logs recipient, subject and every link of the text body at info for the development app', async () => {
    const logs = memoryLogger('info');
    const mailer = new OutboxMailer({ dir, from: 'no-reply@example.test', logger: logs.logger, logLinks: true });

    await mailer.send({
      to: 'ada@example.test',
      subject: 'Reset your Demo password',
      text: `Open ${resetLink}.\nOr copy (${verifyLink}) into the browser; ${resetLink} again.`,
      html: '<p>not read for links</p>',
    });

    const line = logs.lines.find((entry) => entry.msg === 'mail written to outbox');
    expect(line).toMatchObject({ level: 30, to: 'ada@example.test', subject: 'Reset your Demo password', links: [resetLink, verifyLink] });
    expect(String(line?.file)).toMatch(/\.eml$/);
  });

  it('logs recipient, subject and file but no link by default, even at trace', async () => {
    const logs = memoryLogger('trace');
    const mailer = new OutboxMailer({ dir, from: 'no-reply@example.test', logger: logs.logger });

    await mailer.send({ to: 'ada@example.test', subject: 'Reset your Demo password', text: `Open ${resetLink}.`, html: `<p><a href="${resetLink}">Reset</a></p>` });

    const line = logs.lines.find((entry) => entry.msg === 'mail written to outbox');
    expect(line).toMatchObject({ level: 30, to: 'ada@example.test', subject: 'Reset your Demo password' });
    expect(String(line?.file)).toMatch(/\.eml$/);
    expect(line).not.toHaveProperty('links');
    expect(logs.text()).not.toContain('tok_456');
    // The message itself still carries the link.
    expect(await readFile(String(line?.file), 'utf8')).toContain(resetLink);
  });

  it('names files so that sorting them gives the order they were sent in', async () => {
    let now = Date.UTC(2026, 0, 12, 10, 0, 0, 0);
    const ticks = [0, 0, 0, 1, 1000];
    const mailer = new OutboxMailer({
      dir,
      from: 'no-reply@example.test',
      logger: memoryLogger().logger,
      clock: { now: () => (now += ticks.shift() ?? 1) },
    });

    for (let index = 0; index < 5; index += 1) {
      await mailer.send({ to: `user${index}@example.test`, subject: `message ${index}`, text: 'hello', html: '<p>hello</p>' });
    }

    const files = (await readdir(dir)).sort();
    expect(new Set(files).size).toBe(5);
    const subjects = await Promise.all(files.map(async (file) => (await simpleParser(await readFile(join(dir, file)))).subject));
    expect(subjects).toEqual(['message 0', 'message 1', 'message 2', 'message 3', 'message 4']);
  });
});
