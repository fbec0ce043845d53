/**
 * What the push engine hands to a gateway client and what it gets back. The
 * caller builds each body once per push; clients send it as given.
 */

/**
 * The gateways Herald speaks to; also the values of the metrics' `gateway`
 * label, the keys of the delivery windows and of the apps' `push` config:
 * APNs, FCM and the phone makers' own push services (docs/push-engine.md,
 * "Phone-maker gateways").
 */
export const gatewayNames = ['apns', 'fcm', 'hms', 'honor', 'xiaomi', 'oppo', 'vivo', 'meizu'] as const;

export type GatewayName = (typeof gatewayNames)[number];

/** The phone makers' gateways: every gateway but APNs and FCM. */
export type MakerName = Exclude<GatewayName, 'apns' | 'fcm'>;

export const makerNames: readonly MakerName[] = gatewayNames.filter((name): name is MakerName => name !== 'apns' && name !== 'fcm');

/** One notification to one Apple device. */
export interface ApnsDelivery {
  /** Device token, hex. */
  token: string;
  /** `apns-topic`: the bundle id, or a suffixed topic such as `<bundle>.voip`. */
  topic: string;
  /** `apns-push-type`: `alert`, `background`, `voip`, … */
  pushType: string;
  /** `apns-priority`; absent: the header is omitted (APNs assumes 10). */
  priority?: 5 | 10;
  /** `apns-expiration`, Unix seconds; absent: the header is omitted. */
  expiration?: number;
  /** `apns-collapse-id`, at most 64 bytes. */
  collapseId?: string;
  /** The JSON body, at most 4096 bytes. */
  payload: Buffer;
}

/** One message to one FCM registration token. */
export interface FcmDelivery {
  /** The complete JSON body, `{"message":{"token":…,…}}`. */
  body: Buffer;
}

/**
 * How a delivery ended, classified once from the gateway's answer
 * (docs/push-engine.md, "Delivery outcomes"). `reason` is the gateway's own
 * word (`BadDeviceToken`, `UNREGISTERED`, `TooManyRequests`) or, for failures
 * on our side of the wire, one of Herald's (`Timeout`, `ConnectionLost`).
 * `cause` is what the system or the peer said, when known: the connection's
 * error (`connect ECONNREFUSED 10.0.0.1:443`, `getaddrinfo ENOTFOUND …`),
 * the TLS verification error, the token endpoint's answer, the status and
 * start of an error answer. It goes to the sender's warn lines only, never
 * to a record or a label, and only failures make one.
 */
export type DeliveryOutcome =
  | { kind: 'delivered' }
  /**
   * The token will never work. `unregistered`: remove the installation.
   * `since`: when the gateway says the token stopped being valid (ms), so an
   * installation saved again after that is kept.
   */
  | { kind: 'invalid-token'; reason: string; unregistered: boolean; since?: number; cause?: string }
  /** Not delivered, but may be sent again: after `retryAfterMs` when the gateway asked for a pause. */
  | { kind: 'retry'; reason: string; retryAfterMs?: number; cause?: string }
  /** Not delivered and sending it again would not help. */
  | { kind: 'failed'; reason: string; cause?: string };

/**
 * What a client notes of its answer to one delivery beside the outcome, when
 * the caller hands it one (the delivery log's `status` and `messageId`): the
 * APNs and FCM clients write it after every exchange, so after retries it
 * holds the last answer's. Phone makers answer for a batch and leave it.
 */
export interface DeliveryReceipt {
  /** The answer's HTTP status; 0 when no answer came. */
  status: number;
  /** The gateway's id of the message, where it gives one per device: APNs's `apns-id`. */
  messageId: string | undefined;
}

/** A gateway client as the sender and `deliverWithRetry` use it. */
export interface GatewayClient<D> {
  readonly gateway: GatewayName;
  /** Sends one delivery; never rejects: every problem is an outcome. `receipt`, when given, is filled as the answer is read. */
  send(delivery: D, receipt?: DeliveryReceipt): Promise<DeliveryOutcome>;
  /**
   * Readies what a first send would wait for (an access or provider token, an
   * open session), so that a paced push does not spend its grant queued behind
   * them; never rejects, a failure shows on the sends. Absent, nothing to ready.
   */
  warm?(): Promise<void>;
}

/** The one `delivered` outcome, shared so that the hot path allocates nothing for it. */
export const delivered: DeliveryOutcome = Object.freeze({ kind: 'delivered' });
