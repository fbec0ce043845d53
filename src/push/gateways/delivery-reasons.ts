import type { DeliveryOutcome } from './delivery.ts';
import { hmsReasons } from './makers/hms/hms-reasons.ts';
import { oppoReasons } from './makers/oppo/oppo-reasons.ts';
import { vivoReasons } from './makers/vivo/vivo-reasons.ts';
import { honorReasons } from './makers/honor/honor-reasons.ts';
import { meizuReasons } from './makers/meizu/meizu-reasons.ts';
import { xiaomiReasons } from './makers/xiaomi/xiaomi-reasons.ts';
import type { TransportFailure } from './transport-failure.ts';

/**
 * Every reason a delivery can end with (docs/push-engine.md, "Delivery
 * outcomes"): the words each gateway documents, Herald's own words for a
 * request that got no answer and for a device it could not send to, and
 * `Other` for anything else. Reasons become keys of a push record's
 * `errorReasons` and values of the metrics' `reason` label, so a gateway (or
 * a proxy in front of it) that answers a new word each time must not make a
 * new key or series each time: a word outside this catalogue is `Other`, and
 * the word itself goes only to a throttled log line.
 *
 * A gateway added later brings its own list here, named by what it is
 * (a phone maker's lives in its folder, `makers/<maker>/<maker>-reasons.ts`).
 */
export const reasonsBySource = {
  /** Apple's documented reasons, and Herald's names for an answer without one (`BadRequest`). */
  apns: [
    'BadCollapseId',
    'BadDeviceToken',
    'BadExpirationDate',
    'BadMessageId',
    'BadPriority',
    'BadTopic',
    'DeviceTokenNotForTopic',
    'DuplicateHeaders',
    'IdleTimeout',
    'InvalidPushType',
    'MissingDeviceToken',
    'MissingTopic',
    'PayloadEmpty',
    'TopicDisallowed',
    'BadCertificate',
    'BadCertificateEnvironment',
    'ExpiredProviderToken',
    'Forbidden',
    'InvalidProviderToken',
    'MissingProviderToken',
    'UnrelatedKeyIdInToken',
    'BadEnvironmentKeyInToken',
    'BadPath',
    'MethodNotAllowed',
    'ExpiredToken',
    'Unregistered',
    'PayloadTooLarge',
    'TooManyProviderTokenUpdates',
    'TooManyRequests',
    'InternalServerError',
    'ServiceUnavailable',
    'Shutdown',
    'BadRequest',
  ],
  /** FCM HTTP v1's error codes, and the canonical statuses of Google's APIs for an answer without one. */
  fcm: [
    'UNSPECIFIED_ERROR',
    'INVALID_ARGUMENT',
    'UNREGISTERED',
    'SENDER_ID_MISMATCH',
    'QUOTA_EXCEEDED',
    'UNAVAILABLE',
    'INTERNAL',
    'THIRD_PARTY_AUTH_ERROR',
    'CANCELLED',
    'UNKNOWN',
    'DEADLINE_EXCEEDED',
    'NOT_FOUND',
    'ALREADY_EXISTS',
    'PERMISSION_DENIED',
    'RESOURCE_EXHAUSTED',
    'FAILED_PRECONDITION',
    'ABORTED',
    'OUT_OF_RANGE',
    'UNIMPLEMENTED',
    'DATA_LOSS',
    'UNAUTHENTICATED',
  ],
  /** The phone makers' words, one list each. */
  hms: hmsReasons,
  oppo: oppoReasons,
  vivo: vivoReasons,
  honor: honorReasons,
  meizu: meizuReasons,
  xiaomi: xiaomiReasons,
  /** Herald's words for a request that got no answer (the transports' `TransportFailure`). */
  transport: [
    'Timeout',
    'ConnectFailed',
    'ConnectionLost',
    'ConnectionUnavailable',
    'StreamRefused',
    'StreamReset',
    'GoAway',
    'ClientClosed',
    'InvalidHeader',
    'ServerCertificateRejected',
    'BadCertificate',
  ],
  /** Herald's words for a device it did not send to, or a credential it could not get. */
  engine: [
    'NoDeviceToken',
    'NoRegistrationId',
    'UnsupportedVendor',
    'UnknownInstallation',
    'MissingTopic',
    'NoApnsCredentials',
    'NoFcmCredentials',
    'Expired',
    'AccessTokenUnavailable',
    'AccessTokenRefused',
    'ProviderTokenUnavailable',
    // Phone makers (docs/push-engine.md, "Phone-maker gateways").
    'NoVendorCredentials',
    'SilentNotSupported',
    'DailyQuotaExceeded',
    'PayloadTooLarge',
  ],
} as const;

export type ReasonSource = keyof typeof reasonsBySource;

/** A word that is none of the catalogue's. */
export const otherReason = 'Other';

/** The words `source` documents. */
export type ReasonOf<S extends ReasonSource> = (typeof reasonsBySource)[S][number];

/** One reason of the documented set. */
export type DeliveryReason = ReasonOf<ReasonSource> | typeof otherReason;

/** The documented set, each once (a word two sources share, such as `BadCertificate`, means the same in both). */
export const deliveryReasons: readonly DeliveryReason[] = [...new Set<DeliveryReason>([...Object.values(reasonsBySource).flat(), otherReason])];

const known = {} as Record<ReasonSource, ReadonlySet<string>>;
for (const source of Object.keys(reasonsBySource) as ReasonSource[]) known[source] = new Set<string>(reasonsBySource[source]);

/**
 * The reason `source` means by `word`: the word itself when the source
 * documents it, else `Other`. Allocates nothing.
 */
export function reasonOf<S extends ReasonSource>(source: S, word: string): ReasonOf<S> | typeof otherReason {
  return known[source].has(word) ? (word as ReasonOf<S>) : otherReason;
}

/** At most this much of a word a peer sent reaches a log line. */
export const maxLoggedWordLength = 200;

/** `word` cut to what a log line may carry of it. */
export function loggable(word: string): string {
  return word.length > maxLoggedWordLength ? `${word.slice(0, maxLoggedWordLength)}…` : word;
}

/**
 * The outcome of a request that got no answer (a transport's failure): its
 * word when Herald's transports document it, else `Other`; the failure's
 * cause goes with it.
 */
export function noAnswerOutcome(failure: TransportFailure): Extract<DeliveryOutcome, { kind: 'retry' | 'failed' }> {
  const reason = reasonOf('transport', failure.reason);
  const { cause } = failure;
  return failure.retryable ? { kind: 'retry', reason, cause } : { kind: 'failed', reason, cause };
}
