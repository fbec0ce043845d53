import { loggable } from './delivery-reasons.ts';
import type { DeliveryOutcome } from './delivery.ts';

/** Bytes of an error answer's body read for its cause; `loggable` cuts the text further. */
const causeBodyBytes = 256;

/**
 * An error answer as the cause of a failed delivery: its status and the start
 * of its body on one line (`answered 403: {"reason":"BadCertificate"}`,
 * `answered 401: {"error":{"code":401,"message":"Request had invalid
 * authentication credentials…`).
 */
export function answerCause(status: number, body: Buffer | undefined): string {
  const text = body === undefined ? '' : body.toString('utf8', 0, causeBodyBytes).replace(/\s+/g, ' ').trim();
  return text === '' ? `answered ${status}` : `answered ${status}: ${loggable(text)}`;
}

/**
 * `outcome` with the answer as its cause, when it is one an operator may have
 * to act on: a retry, a failure, or an invalid token that is kept (a token the
 * gateway reports unregistered is routine and gets none). A delivered outcome
 * is answered as it is, so the delivered path makes nothing.
 */
export function withAnswerCause(outcome: DeliveryOutcome, status: number, body: Buffer | undefined): DeliveryOutcome {
  switch (outcome.kind) {
    case 'delivered':
      return outcome;
    case 'invalid-token':
      return outcome.unregistered ? outcome : { ...outcome, cause: answerCause(status, body) };
    default:
      return { ...outcome, cause: answerCause(status, body) };
  }
}
