import { createHmac } from 'node:crypto';

/** The header that carries a batch's signature. */
export const webhookSignatureHeader = 'Herald-Signature';

/**
 * The `Herald-Signature` value of a body sent at `timestamp` (Unix seconds):
 * `t=<timestamp>,v1=<hex HMAC-SHA256 of "<timestamp>.<body>" under the secret>`.
 * Signed again at each attempt, so a retry carries a fresh time and a
 * receiver can refuse anything older than its replay window (docs/webhooks.md).
 */
export function webhookSignature(secret: string, timestamp: number, body: string): string {
  const digest = createHmac('sha256', secret).update(`${timestamp}.`).update(body).digest('hex');
  return `t=${timestamp},v1=${digest}`;
}
