import { ErrorCode, HeraldError } from '../core/errors.ts';

/**
 * The SMS webhook did not take a code. No answer, a timeout, 429 or 5xx
 * answer 503 so the client retries; other refusals answer 500.
 */
export class SmsDeliveryError extends HeraldError {
  /** HTTP status the webhook answered with; undefined when it did not answer. */
  readonly webhookStatus: number | undefined;

  constructor(reason: string, webhookStatus?: number, cause?: unknown) {
    const retryable = webhookStatus === undefined || webhookStatus === 429 || webhookStatus >= 500;
    super(retryable ? ErrorCode.unavailable : ErrorCode.internal, `SMS delivery failed: ${reason}`, {
      status: retryable ? 503 : 500,
      retryable,
      cause,
    });
    this.name = 'SmsDeliveryError';
    this.webhookStatus = webhookStatus;
  }
}
