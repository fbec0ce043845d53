import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { appSchema } from '../../src/config/schema.ts';
import { createSmsSender } from '../../src/sms/create-sms-sender.ts';
import { OutboxSmsSender } from '../../src/sms/outbox-sms-sender.ts';
import { WebhookSmsSender } from '../../src/sms/webhook-sms-sender.ts';
import { memoryLogger } from '../support/memory-logger.ts';
import { startSmsWebhook } from '../support/sms-webhook.ts';

describe('OutboxSmsSender', () => {
  let dir: string;

  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'herald-sms-'));
  });

  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('appends one JSON line per message to sms-<appId>.jsonl and logs number and code for the development app', async () => {
    const logs = memoryLogger('info');
    const outbox = join(dir, 'sms');
    const sender = new OutboxSmsSender({ dir: outbox, appId: 'demo', logger: logs.logger, clock: { now: () => Date.UTC(2026, 0, 12) }, logCodes: true });

    await sender.send({ to: '+4915100000001', code: '111111', text: 'code 111111' });
    await sender.send({ to: '+4915100000002', code: '222222', text: 'code 222222' });

    const lines = (await readFile(join(outbox, 'sms-demo.jsonl'), 'utf8')).split('\n');
    expect(lines.pop()).toBe('');
    expect(lines.map((line) => JSON.parse(line) as unknown)).toEqual([
      { time: '2026-01-12T00:00:00.000Z', to: '+4915100000001', code: '111111', text: 'code 111111' },
      { time: '2026-01-12T00:00:00.000Z', to: '+4915100000002', code: '222222', text: 'code 222222' },
    ]);
    const logged = logs.lines.filter((line) => line.msg === 'SMS code written to outbox');
    expect(logged).toMatchObject([
      { level: 30, to: '+4915100000001', code: '111111' },
      { level: 30, to: '+4915100000002', code: '222222' },
    ]);
  });
});

describe('OutboxSmsSender without logCodes', () => {
  it('writes the code to the outbox and logs number and file, never the code, even at trace', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'herald-sms-'));
    try {
      const logs = memoryLogger('trace');
      const sender = new OutboxSmsSender({ dir, appId: 'demo', logger: logs.logger });
      await sender.send({ to: '+4915100000009', code: '909090', text: 'Your code is 909090' });
      expect(await readFile(join(dir, 'sms-demo.jsonl'), 'utf8')).toContain('"code":"909090"');
      const line = logs.lines.find((entry) => entry.msg === 'SMS code written to outbox');
      expect(line).toMatchObject({ level: 30, to: '+4915100000009', file: join(dir, 'sms-demo.jsonl') });
      expect(line).not.toHaveProperty('code');
      expect(logs.text()).not.toContain('909090');
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

describe('createSmsSender', () => {
  const base = { id: 'demo', key: 'app-key-123', masterKey: 'master-key-123' };

  it('writes to <outboxDir>/sms when no webhook is configured, warns once that codes go nowhere, and never logs them', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'herald-sms-'));
    try {
      const logs = memoryLogger('trace');
      const sender = createSmsSender(appSchema.parse(base), { outboxDir: dir, logger: logs.logger });
      expect(sender).toBeInstanceOf(OutboxSmsSender);
      const warnings = logs.lines.filter((line) => line.level === 40);
      expect(warnings).toHaveLength(1);
      expect(warnings[0]).toMatchObject({ app: 'demo', component: 'sms', outbox: join(dir, 'sms', 'sms-demo.jsonl') });
      expect(warnings[0]?.msg).toMatch(/no SMS webhook configured.*outbox.*not logged/);
      await sender.send({ to: '+4915100000001', code: '123456', text: 'code' });
      await sender.send({ to: '+4915100000002', code: '654321', text: 'code' });
      expect(await readFile(join(dir, 'sms', 'sms-demo.jsonl'), 'utf8')).toContain('"code":"123456"');
      expect(logs.lines.filter((line) => line.level === 40)).toHaveLength(1);
      expect(logs.text()).not.toMatch(/123456|654321/);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('logs the codes of the development app, without the warning', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'herald-sms-'));
    try {
      const logs = memoryLogger('info');
      const sender = createSmsSender(appSchema.parse(base), { outboxDir: dir, logger: logs.logger, development: true });
      await sender.send({ to: '+4915100000001', code: '123456', text: 'code' });
      expect(logs.lines).toMatchObject([{ level: 30, app: 'demo', to: '+4915100000001', code: '123456' }]);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('uses the webhook when sms.webhookUrl is configured, posting to it with its token and not to the outbox', async () => {
    const webhook = await startSmsWebhook();
    try {
      const app = appSchema.parse({ ...base, sms: { webhookUrl: webhook.url, webhookToken: 'sms-token-42' } });
      const sender = createSmsSender(app, { outboxDir: '/nonexistent', logger: memoryLogger().logger });
      expect(sender).toBeInstanceOf(WebhookSmsSender);
      const arrived = webhook.next('+4915100000003');
      await sender.send({ to: '+4915100000003', code: '654321', text: 'code 654321' });
      expect(await arrived).toEqual({ to: '+4915100000003', code: '654321', text: 'code 654321', authorization: 'Bearer sms-token-42' });
    } finally {
      await webhook.close();
    }
  });
});
