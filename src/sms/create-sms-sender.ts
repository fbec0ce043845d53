import { join } from 'node:path';
import type { AppConfig } from '../config/schema.ts';
import type { Logger } from '../core/logger.ts';
import type { SmsSender } from '../core/ports/sms-sender.ts';
import { OutboxSmsSender } from './outbox-sms-sender.ts';
import { WebhookSmsSender } from './webhook-sms-sender.ts';

export interface CreateSmsSenderOptions {
  /** The outbox root, normally `<dataDir>/outbox`; this app's codes go to `sms/sms-<appId>.jsonl` below it. */
  outboxDir: string;
  logger: Logger;
  /** The app is the development app (src/config/dev-keys.ts): its outbox logs the codes. */
  development?: boolean;
}

/**
 * The SMS sender of one app: the webhook when `sms.webhookUrl` is configured,
 * else the outbox. A configured app without a webhook is warned about here,
 * once at start: its codes reach nobody, and they are not logged.
 */
export function createSmsSender(app: AppConfig, options: CreateSmsSenderOptions): SmsSender {
  const logger = options.logger.child({ app: app.id, component: 'sms' });
  if (app.sms.webhookUrl !== undefined) {
    return new WebhookSmsSender({ url: app.sms.webhookUrl, token: app.sms.webhookToken, logger });
  }
  const dir = join(options.outboxDir, 'sms');
  const development = options.development ?? false;
  if (!development) {
    logger.warn({ outbox: join(dir, `sms-${app.id}.jsonl`) }, 'no SMS webhook configured (sms.webhookUrl, HERALD_SMS_WEBHOOK_URL): SMS codes are written to the outbox, not sent, and are not logged');
  }
  return new OutboxSmsSender({ dir, appId: app.id, logger, logCodes: development });
}
