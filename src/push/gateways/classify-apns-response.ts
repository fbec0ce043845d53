import { reasonOf, type ReasonOf } from './delivery-reasons.ts';
import { delivered, type DeliveryOutcome } from './delivery.ts';

/** The error body of an APNs answer: `{"reason": "...", "timestamp": <ms>}` (timestamp on 410 only). */
export interface ApnsError {
  /** The reason word as APNs (or whatever answered) sent it; bounded only by the error body's size. */
  reason: string | undefined;
  timestamp: number | undefined;
}

type Verdict = 'invalid-token' | 'unregistered' | 'retry' | 'failed';

/**
 * The one table from APNs reasons to outcomes (docs/push-engine.md), a
 * verdict for every reason Apple documents. `Other` (a word Apple does not
 * document) is judged by its status: 410 unregistered, 429 and 5xx retry,
 * everything else failed.
 */
const verdictByReason: Readonly<Record<ReasonOf<'apns'>, Verdict>> = {
  BadCollapseId: 'failed',
  BadDeviceToken: 'invalid-token',
  BadExpirationDate: 'failed',
  BadMessageId: 'failed',
  BadPriority: 'failed',
  BadTopic: 'failed',
  DeviceTokenNotForTopic: 'invalid-token',
  DuplicateHeaders: 'failed',
  // Sent with a GOAWAY when APNs closes an idle connection.
  IdleTimeout: 'retry',
  InvalidPushType: 'failed',
  MissingDeviceToken: 'failed',
  MissingTopic: 'failed',
  PayloadEmpty: 'failed',
  TopicDisallowed: 'failed',
  BadCertificate: 'failed',
  BadCertificateEnvironment: 'failed',
  ExpiredProviderToken: 'failed',
  Forbidden: 'failed',
  InvalidProviderToken: 'failed',
  MissingProviderToken: 'failed',
  UnrelatedKeyIdInToken: 'failed',
  BadEnvironmentKeyInToken: 'failed',
  BadPath: 'failed',
  MethodNotAllowed: 'failed',
  ExpiredToken: 'unregistered',
  Unregistered: 'unregistered',
  PayloadTooLarge: 'failed',
  TooManyProviderTokenUpdates: 'retry',
  TooManyRequests: 'retry',
  InternalServerError: 'retry',
  ServiceUnavailable: 'retry',
  Shutdown: 'retry',
  BadRequest: 'failed',
};

/** Reasons for answers without a readable body: Apple's name for the status, or Herald's `BadRequest`. */
const reasonByStatus: Readonly<Record<number, ReasonOf<'apns'>>> = {
  400: 'BadRequest',
  403: 'Forbidden',
  404: 'BadPath',
  405: 'MethodNotAllowed',
  410: 'Unregistered',
  413: 'PayloadTooLarge',
  429: 'TooManyRequests',
  500: 'InternalServerError',
  503: 'ServiceUnavailable',
};

/** Reads the reason and timestamp of an APNs error body; missing or malformed parts are undefined. */
export function readApnsError(body: Buffer | undefined): ApnsError {
  if (body === undefined || body.length === 0) return { reason: undefined, timestamp: undefined };
  try {
    const parsed = JSON.parse(body.toString('utf8')) as { reason?: unknown; timestamp?: unknown };
    return {
      reason: typeof parsed.reason === 'string' ? parsed.reason : undefined,
      timestamp: typeof parsed.timestamp === 'number' && Number.isFinite(parsed.timestamp) ? parsed.timestamp : undefined,
    };
  } catch {
    return { reason: undefined, timestamp: undefined };
  }
}

/**
 * The documented reason of an APNs answer: its reason word when Apple
 * documents it, a word Apple does not document as `Other`, no word as the
 * status's name (`Other` for a status without one).
 */
export function apnsReason(status: number, error: ApnsError): ReasonOf<'apns'> | 'Other' {
  if (error.reason !== undefined) return reasonOf('apns', error.reason);
  return reasonByStatus[status] ?? 'Other';
}

/** Classifies one APNs answer. `retryAfterMs` comes from a `Retry-After` header, if any. */
export function classifyApnsResponse(status: number, error: ApnsError, retryAfterMs?: number): DeliveryOutcome {
  if (status === 200) return delivered;
  const reason = apnsReason(status, error);
  switch (reason === 'Other' ? verdictByStatus(status) : verdictByReason[reason]) {
    case 'invalid-token':
      return { kind: 'invalid-token', reason, unregistered: false };
    case 'unregistered':
      return error.timestamp === undefined
        ? { kind: 'invalid-token', reason, unregistered: true }
        : { kind: 'invalid-token', reason, unregistered: true, since: error.timestamp };
    case 'retry':
      return retryAfterMs === undefined ? { kind: 'retry', reason } : { kind: 'retry', reason, retryAfterMs };
    case 'failed':
      return { kind: 'failed', reason };
  }
}

function verdictByStatus(status: number): Verdict {
  if (status === 410) return 'unregistered';
  if (status === 429 || status >= 500) return 'retry';
  return 'failed';
}
