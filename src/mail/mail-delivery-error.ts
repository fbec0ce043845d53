import { ErrorCode, HeraldError } from '../core/errors.ts';

export interface MailDeliveryFailure {
  /** What went wrong, in words safe for logs: never credentials. */
  detail: string;
  /** The SMTP reply code, when the server answered with an error. */
  smtpCode?: number | undefined;
  /** The server refused the message for good (5xx); retrying will not help. */
  permanent?: boolean | undefined;
}

/**
 * A message could not be handed to the SMTP server. Transient failures
 * (no connection, timeouts, 4xx replies) answer 503 so the client retries;
 * permanent refusals answer 500.
 */
export class MailDeliveryError extends HeraldError {
  readonly detail: string;
  readonly smtpCode: number | undefined;

  constructor({ detail, smtpCode, permanent = false }: MailDeliveryFailure) {
    const reason = smtpCode === undefined ? '' : ` (server answered ${smtpCode})`;
    super(permanent ? ErrorCode.internal : ErrorCode.unavailable, `SMTP delivery failed${reason}`, {
      status: permanent ? 500 : 503,
      retryable: !permanent,
    });
    this.name = 'MailDeliveryError';
    this.detail = detail;
    this.smtpCode = smtpCode;
  }
}
