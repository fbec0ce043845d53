import nodemailer, { type NodemailerError, type SMTPPoolSentMessageInfo, type Transporter } from 'nodemailer';
import type { SmtpConfig } from '../config/schema.ts';
import type { Logger } from '../core/logger.ts';
import type { Mailer, MailMessage } from '../core/ports/mailer.ts';
import { MailDeliveryError } from './mail-delivery-error.ts';
import { toMailOptions } from './to-mail-options.ts';

export interface SmtpMailerOptions {
  /** The From header, e.g. `Herald <no-reply@example.com>`. */
  from: string;
  smtp: SmtpConfig;
  logger: Logger;
  /** Longest wait for the TCP connection and for the server's greeting, in ms. */
  connectTimeoutMs?: number;
  /** Longest silence on an open connection, in ms. */
  socketTimeoutMs?: number;
  /** Longest time one send may take, queueing in the pool included, in ms. */
  sendTimeoutMs?: number;
  /** Open connections kept to the server. */
  maxConnections?: number;
}

/** Sends account mail through an SMTP server over a small connection pool. */
export class SmtpMailer implements Mailer {
  readonly #transport: Transporter<SMTPPoolSentMessageInfo>;
  readonly #from: string;
  readonly #logger: Logger;
  readonly #secrets: string[];
  readonly #sendTimeoutMs: number;
  readonly #inFlight = new Set<Promise<void>>();
  #closing: Promise<void> | undefined;

  constructor(options: SmtpMailerOptions) {
    const { smtp } = options;
    const connectTimeout = options.connectTimeoutMs ?? 10_000;
    this.#transport = nodemailer.createTransport(
      {
        pool: true,
        host: smtp.host,
        port: smtp.port,
        secure: smtp.secure,
        auth: smtp.user === undefined ? undefined : { user: smtp.user, pass: smtp.pass ?? '' },
        tls: { rejectUnauthorized: smtp.rejectUnauthorized },
        maxConnections: options.maxConnections ?? 3,
        connectionTimeout: connectTimeout,
        greetingTimeout: connectTimeout,
        dnsTimeout: connectTimeout,
        socketTimeout: options.socketTimeoutMs ?? 30_000,
        // nodemailer's own logger would print the AUTH exchange at debug level.
        logger: false,
        disableFileAccess: true,
        disableUrlAccess: true,
      },
    );
    this.#from = options.from;
    this.#logger = options.logger;
    this.#secrets = [smtp.user, smtp.pass].filter((value): value is string => value !== undefined && value.length >= 3);
    this.#sendTimeoutMs = options.sendTimeoutMs ?? 60_000;
  }

  /** Hands the message to the SMTP server; throws `MailDeliveryError` when it is not accepted. */
  async send(message: MailMessage): Promise<void> {
    if (this.#closing !== undefined) throw new MailDeliveryError({ detail: 'the mailer is closed' });
    const sending = this.#deliver(message);
    const tracked = sending.catch(() => undefined);
    this.#inFlight.add(tracked);
    try {
      await sending;
    } finally {
      this.#inFlight.delete(tracked);
    }
  }

  /** Waits for sends in flight, then closes the pooled connections. Idempotent. */
  close(): Promise<void> {
    this.#closing ??= Promise.allSettled([...this.#inFlight]).then(() => {
      this.#transport.close();
    });
    return this.#closing;
  }

  async #deliver(message: MailMessage): Promise<void> {
    try {
      const info = await this.#transport.sendMail({
        ...toMailOptions(this.#from, message),
        signal: AbortSignal.timeout(this.#sendTimeoutMs),
      });
      this.#logger.debug({ to: message.to, subject: message.subject, messageId: info.messageId }, 'mail sent over SMTP');
    } catch (error) {
      const failure = this.#describe(error);
      this.#logger.warn({ to: message.to, subject: message.subject, smtpCode: failure.smtpCode, detail: failure.detail }, 'SMTP delivery failed');
      throw failure;
    }
  }

  /** Turns a nodemailer error into a `MailDeliveryError` whose text holds no credentials. */
  #describe(error: unknown): MailDeliveryError {
    const err = (error instanceof Error ? error : new Error(String(error))) as NodemailerError;
    // Only our own deadline aborts a send.
    const aborted = err.code === 'EABORT' || err.name === 'AbortError' || err.name === 'TimeoutError';
    const text = aborted
      ? `ETIMEDOUT: no answer within ${this.#sendTimeoutMs} ms`
      : `${err.code ?? err.name}: ${err.message}${err.originalCode === undefined ? '' : ` (${err.originalCode})`}`;
    const detail = this.#redact(text);
    return new MailDeliveryError({ detail, smtpCode: err.responseCode, permanent: err.permanent });
  }

  #redact(text: string): string {
    return this.#secrets.reduce((out, secret) => out.split(secret).join('[redacted]'), text);
  }
}
