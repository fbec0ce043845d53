import { reasonOf, type ReasonOf } from './delivery-reasons.ts';
import { delivered, type DeliveryOutcome } from './delivery.ts';

/** What an FCM error body says: `{error: {code, message, status, details: [...]}}`; its words as sent, unbounded. */
export interface FcmError {
  /** Canonical status, e.g. `NOT_FOUND`, `INVALID_ARGUMENT`. */
  status: string | undefined;
  /** `errorCode` of the `google.firebase.fcm.v1.FcmError` detail, e.g. `UNREGISTERED`. */
  errorCode: string | undefined;
  /** Whether the error is about the registration token (a `message.token` field violation or such a message). */
  aboutToken: boolean;
}

const fcmErrorType = 'type.googleapis.com/google.firebase.fcm.v1.FcmError';
const badRequestType = 'type.googleapis.com/google.rpc.BadRequest';
const retryCodes: ReadonlySet<string> = new Set<ReasonOf<'fcm'>>(['QUOTA_EXCEEDED', 'UNAVAILABLE', 'INTERNAL']);

/** Reasons for answers without an error body: the canonical status Google's APIs answer with that HTTP status alone. */
const reasonByStatus: Readonly<Record<number, ReasonOf<'fcm'>>> = {
  401: 'UNAUTHENTICATED',
  403: 'PERMISSION_DENIED',
  404: 'NOT_FOUND',
  429: 'RESOURCE_EXHAUSTED',
  500: 'INTERNAL',
  501: 'UNIMPLEMENTED',
  503: 'UNAVAILABLE',
  504: 'DEADLINE_EXCEEDED',
};

/** Reads an FCM error body; missing or malformed parts are undefined. */
export function readFcmError(body: Buffer | undefined): FcmError {
  const none: FcmError = { status: undefined, errorCode: undefined, aboutToken: false };
  if (body === undefined || body.length === 0) return none;
  let error: { status?: unknown; message?: unknown; details?: unknown };
  try {
    error = (JSON.parse(body.toString('utf8')) as { error?: typeof error }).error ?? {};
  } catch {
    return none;
  }
  let errorCode: string | undefined;
  let aboutToken = typeof error.message === 'string' && /registration token/i.test(error.message);
  for (const detail of Array.isArray(error.details) ? (error.details as Record<string, unknown>[]) : []) {
    if (detail['@type'] === fcmErrorType && typeof detail.errorCode === 'string') errorCode = detail.errorCode;
    if (detail['@type'] === badRequestType && Array.isArray(detail.fieldViolations)) {
      aboutToken ||= (detail.fieldViolations as { field?: unknown }[]).some((violation) => violation.field === 'message.token');
    }
  }
  return { status: typeof error.status === 'string' ? error.status : undefined, errorCode, aboutToken };
}

/**
 * The documented reason of an FCM answer: its errorCode, else its canonical
 * status, else the status's name, each as documented or else `Other`.
 */
export function fcmReason(status: number, error: FcmError): ReasonOf<'fcm'> | 'Other' {
  const word = error.errorCode ?? error.status;
  if (word !== undefined) return reasonOf('fcm', word);
  return reasonByStatus[status] ?? 'Other';
}

/**
 * Classifies one FCM answer (docs/push-engine.md): UNREGISTERED removes the
 * installation; an INVALID_ARGUMENT about the token and SENDER_ID_MISMATCH are
 * invalid tokens; 429 and any 5xx are retried, and so is QUOTA_EXCEEDED,
 * INTERNAL or UNAVAILABLE whatever the status; the rest fail.
 */
export function classifyFcmResponse(status: number, error: FcmError, retryAfterMs?: number): DeliveryOutcome {
  if (status === 200) return delivered;
  const reason = fcmReason(status, error);
  if (error.errorCode === 'UNREGISTERED') return { kind: 'invalid-token', reason, unregistered: true };
  if (error.errorCode === 'SENDER_ID_MISMATCH') return { kind: 'invalid-token', reason, unregistered: false };
  if (status === 400 && reason === 'INVALID_ARGUMENT' && error.aboutToken) {
    return { kind: 'invalid-token', reason, unregistered: false };
  }
  if (status === 429 || status >= 500 || retryCodes.has(reason)) {
    return retryAfterMs === undefined ? { kind: 'retry', reason } : { kind: 'retry', reason, retryAfterMs };
  }
  return { kind: 'failed', reason };
}
