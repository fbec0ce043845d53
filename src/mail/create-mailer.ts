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
  /** The app is the development app (src/config/dev-keys.ts): its outbox logs links, secrets included. */
  development?: boolean;
}

/**
 * The mailer of one app: SMTP when `mail.smtp` is configured, else the outbox
 * folder. A configured app without SMTP is warned about here, once at start:
 * its mail reaches nobody, and its links are not logged.
 */
export function createMailer(app: AppConfig, options: CreateMailerOptions): Mailer {
  const logger = options.logger.child({ app: app.id, component: 'mail' });
  if (app.mail.smtp !== undefined) {
    return new SmtpMailer({ from: app.mail.from, smtp: app.mail.smtp, logger });
  }
  const dir = join(options.outboxDir, 'mail', app.id);
  const development = options.development ?? false;
  if (!development) {
    logger.warn({ outbox: dir }, 'no SMTP server configured (mail.smtp, HERALD_SMTP_URL): verification and reset mail is written to the outbox, not sent, and its links are not logged');
  }
  return new OutboxMailer({ dir, from: app.mail.from, logger, logLinks: development });
}
