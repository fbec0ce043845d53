import { join } from 'node:path';
import type { AppConfig } from '../config/schema.ts';
import type { Logger } from '../core/logger.ts';
import type { Mailer } from '../core/ports/mailer.ts';
import { OutboxMailer } from './outbox-mailer.ts';
import { SmtpMailer } from './smtp-mailer.ts';

export interface CreateMailerOptions {
  /** The outbox root, normally `<dataDir>/outbox`; this app's mail goes to `mail/<appId>` below it. */
  outboxDir: string;
  logger: Logger;
}

/** The mailer of one app: SMTP when `mail.smtp` is configured, else the outbox folder. */
export function createMailer(app: AppConfig, options: CreateMailerOptions): Mailer {
  const logger = options.logger.child({ app: app.id, component: 'mail' });
  if (app.mail.smtp !== undefined) {
    return new SmtpMailer({ from: app.mail.from, smtp: app.mail.smtp, logger });
  }
  return new OutboxMailer({ dir: join(options.outboxDir, 'mail', app.id), from: app.mail.from, logger });
}
