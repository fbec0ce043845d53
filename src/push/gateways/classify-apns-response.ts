import { delivered, type DeliveryOutcome } from './delivery.ts';

/** The error body of an APNs answer: `{"reason": "...", "timestamp": <ms>}` (timestamp on 410 only). */
export interface ApnsError {
  reason: string | undefined;
  timestamp: number | undefined;
}

type Verdict = 'invalid-token' | 'unregistered' | 'retry' | 'failed';

/**
 * The one table from APNs reasons to outcomes (docs/push-engine.md). A reason
 * not listed here is judged by its status: 410 unregistered, 429 and 5xx
 * retry, everything else failed with the reason.
 */
const verdictByReason: Readonly<Record<string, Verdict>> = {
  BadDeviceToken: 'invalid-token',
  DeviceTokenNotForTopic: 'invalid-token',
  Unregistered: 'unregistered',
  ExpiredToken: 'unregistered',
  TooManyRequests: 'retry',
  TooManyProviderTokenUpdates: 'retry',
  // Sent with a GOAWAY when APNs closes an idle connection.
  IdleTimeout: 'retry',
  InternalServerError: 'retry',
  ServiceUnavailable: 'retry',
  Shutdown: 'retry',
  PayloadTooLarge: 'failed',
  BadTopic: 'failed',
  MissingTopic: 'failed',
  TopicDisallowed: 'failed',
  BadCertificate: 'failed',
  BadCertificateEnvironment: 'failed',
  ExpiredProviderToken: 'failed',
  InvalidProviderToken: 'failed',
  MissingProviderToken: 'failed',
};

/** Reasons for answers without a readable body. */
const reasonByStatus: Readonly<Record<number, string>> = {
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

/** Classifies one APNs answer. `retryAfterMs` comes from a `Retry-After` header, if any. */
export function classifyApnsResponse(status: number, error: ApnsError, retryAfterMs?: number): DeliveryOutcome {
  if (status === 200) return delivered;
  const reason = error.reason ?? reasonByStatus[status] ?? `Http${status}`;
  switch (verdictByReason[reason] ?? verdictByStatus(status)) {
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
