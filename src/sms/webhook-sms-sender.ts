import type { Logger } from '../core/logger.ts';
import type { SmsMessage, SmsSender } from '../core/ports/sms-sender.ts';
import { SmsDeliveryError } from './sms-delivery-error.ts';

export interface WebhookSmsSenderOptions {
  /** Receives `POST {to, code, text}` as JSON. */
  url: string;
  /** Sent as `Authorization: Bearer <token>` when set. */
  token?: string | undefined;
  logger: Logger;
  /** Longest wait for the webhook's answer, in ms. */
  timeoutMs?: number;
}

/** Hands SMS codes to an HTTP webhook that talks to the SMS provider. */
export class WebhookSmsSender implements SmsSender {
  readonly #url: string;
  readonly #token: string | undefined;
  readonly #logger: Logger;
  readonly #timeoutMs: number;

  constructor(options: WebhookSmsSenderOptions) {
    this.#url = options.url;
    this.#token = options.token;
    this.#logger = options.logger;
    this.#timeoutMs = options.timeoutMs ?? 10_000;
  }

  /** Resolves once the webhook answered 2xx; throws `SmsDeliveryError` otherwise. */
  async send(message: SmsMessage): Promise<void> {
    const headers: Record<string, string> = { 'content-type': 'application/json', accept: 'application/json' };
    if (this.#token !== undefined) headers.authorization = `Bearer ${this.#token}`;
    let response: Response;
    try {
      response = await fetch(this.#url, {
        method: 'POST',
        headers,
        body: JSON.stringify({ to: message.to, code: message.code, text: message.text }),
        redirect: 'error',
        signal: AbortSignal.timeout(this.#timeoutMs),
      });
    } catch (error) {
      const timedOut = error instanceof Error && error.name === 'TimeoutError';
      const failure = new SmsDeliveryError(timedOut ? `webhook did not answer within ${this.#timeoutMs} ms` : 'webhook unreachable', undefined, error);
      this.#logger.warn({ to: message.to, err: failure }, 'SMS webhook failed');
      throw failure;
    }
    // Read the body so the connection returns to the pool; its content is not used.
    await response.arrayBuffer().catch(() => undefined);
    if (!response.ok) {
      const failure = new SmsDeliveryError(`webhook answered HTTP ${response.status}`, response.status);
      this.#logger.warn({ to: message.to, webhookStatus: response.status }, 'SMS webhook refused the message');
      throw failure;
    }
    this.#logger.debug({ to: message.to }, 'SMS code handed to webhook');
  }
}
