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
}

/** The SMS sender of one app: the webhook when `sms.webhookUrl` is configured, else the outbox. */
export function createSmsSender(app: AppConfig, options: CreateSmsSenderOptions): SmsSender {
  const logger = options.logger.child({ app: app.id, component: 'sms' });
  if (app.sms.webhookUrl !== undefined) {
    return new WebhookSmsSender({ url: app.sms.webhookUrl, token: app.sms.webhookToken, logger });
  }
  return new OutboxSmsSender({ dir: join(options.outboxDir, 'sms'), appId: app.id, logger });
}
