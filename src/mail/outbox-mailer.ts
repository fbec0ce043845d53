import { mkdir, rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import nodemailer, { type StreamSentMessageInfo, type Transporter } from 'nodemailer';
import { systemClock, type Clock } from '../core/clock.ts';
import type { Logger } from '../core/logger.ts';
import type { Mailer, MailMessage } from '../core/ports/mailer.ts';
import { findLinks } from './find-links.ts';
import { OutboxFileNames } from './outbox-file-name.ts';
import { toMailOptions } from './to-mail-options.ts';

export interface OutboxMailerOptions {
  /** Folder the `.eml` files go to, e.g. `<dataDir>/outbox/mail/<appId>`; created when needed. */
  dir: string;
  /** The From header of every message. */
  from: string;
  logger: Logger;
  clock?: Clock;
  /**
   * Log each message's links, one-time secrets included, so that a developer
   * without an SMTP server can follow them from the log. Only for the
   * development app (src/config/dev-keys.ts); default false.
   */
  logLinks?: boolean;
}

/**
 * The embedded default mailer: writes each message as an RFC 822 `.eml` file
 * and logs that it did, with the message's links when `logLinks` is set.
 */
export class OutboxMailer implements Mailer {
  readonly #dir: string;
  readonly #from: string;
  readonly #logger: Logger;
  readonly #clock: Clock;
  readonly #logLinks: boolean;
  readonly #names = new OutboxFileNames();
  readonly #composer: Transporter<StreamSentMessageInfo>;
  #ready: Promise<unknown> | undefined;

  constructor(options: OutboxMailerOptions) {
    this.#dir = options.dir;
    this.#from = options.from;
    this.#logger = options.logger;
    this.#clock = options.clock ?? systemClock;
    this.#logLinks = options.logLinks ?? false;
    this.#composer = nodemailer.createTransport({ streamTransport: true, buffer: true, newline: 'windows' });
  }

  /** Writes the message to the outbox folder and logs recipient, subject and file (and links, with `logLinks`) at info. */
  async send(message: MailMessage): Promise<void> {
    const info = await this.#composer.sendMail(toMailOptions(this.#from, message));
    const eml = info.message;
    if (!Buffer.isBuffer(eml)) throw new TypeError('nodemailer stream transport did not return a buffer');
    this.#ready ??= mkdir(this.#dir, { recursive: true });
    await this.#ready;
    const file = join(this.#dir, this.#names.next(this.#clock.now(), 'eml'));
    // Write then rename, so a reader watching the folder never sees half a message.
    await writeFile(`${file}.tmp`, eml, { flag: 'wx' });
    await rename(`${file}.tmp`, file);
    const links = this.#logLinks ? { links: findLinks(message.text) } : {};
    this.#logger.info({ to: message.to, subject: message.subject, ...links, file }, 'mail written to outbox');
  }

  /** Nothing to release; every send finishes its own file. */
  close(): Promise<void> {
    return Promise.resolve();
  }
}
