import type { Clock } from '../../core/clock.ts';
import { compileApnsClientOptions, type ApnsClientOptions, type ApnsEnvironment } from './apns-client-options.ts';
import { ApnsProviderToken } from './apns-provider-token.ts';
import { withAnswerCause } from './answer-cause.ts';
import { authorizationOutcome } from './authorization-source.ts';
import { classifyApnsResponse, readApnsError, type ApnsError } from './classify-apns-response.ts';
import { noAnswerOutcome } from './delivery-reasons.ts';
import { delivered, type ApnsDelivery, type DeliveryOutcome, type DeliveryReceipt, type GatewayClient } from './delivery.ts';
import { createGatewayTransport } from './create-gateway-transport.ts';
import type { GatewayAnswer, GatewayRequest, GatewayTransport } from './gateway-transport.ts';
import { parseRetryAfter } from './retry-after.ts';
import { UnknownReasonLog } from './unknown-reason-log.ts';

/** Reasons after which a fresh provider token may succeed where the old one failed. */
const tokenRejections = new Set(['ExpiredProviderToken', 'InvalidProviderToken']);

/**
 * Sends notifications to APNs (`POST /3/device/<token>`) over pooled HTTP/2
 * sessions, with token or certificate auth, and classifies every answer.
 * One client serves one endpoint and one set of credentials; the registry
 * (`PushGateways`) keeps one per app, environment and certificate profile.
 */
export class ApnsClient implements GatewayClient<ApnsDelivery> {
  readonly gateway = 'apns';
  readonly environment: ApnsEnvironment;
  readonly endpoint: string;
  /** The app's default `apns-topic`, for deliveries whose push and installation name none. */
  readonly defaultTopic: string | undefined;
  readonly #pool: GatewayTransport;
  readonly #token: ApnsProviderToken | undefined;
  readonly #clock: Clock;
  readonly #unknownReasons: UnknownReasonLog;

  constructor(options: ApnsClientOptions) {
    const compiled = compileApnsClientOptions(options);
    this.environment = compiled.environment;
    this.endpoint = compiled.endpoint;
    this.defaultTopic = compiled.defaultTopic;
    this.#clock = compiled.clock;
    this.#unknownReasons = new UnknownReasonLog({ gateway: 'apns', logger: compiled.logger, clock: compiled.clock });
    this.#pool = createGatewayTransport(compiled.transport, {
      gateway: 'apns',
      origin: compiled.endpoint,
      tls: compiled.tls,
      sessions: compiled.sessions,
      requestTimeoutMs: compiled.requestTimeoutMs,
      pingIntervalMs: compiled.pingIntervalMs,
      metrics: compiled.metrics,
      logger: compiled.logger,
    });
    this.#token =
      compiled.auth.kind === 'token'
        ? new ApnsProviderToken({ ...compiled.auth, refreshAfterMs: compiled.tokenRefreshMs, clock: compiled.clock })
        : undefined;
  }

  /** Requests waiting for or holding a stream. */
  get inFlight(): number {
    return this.#pool.inFlight;
  }

  /** Open HTTP/2 sessions. */
  get sessions(): number {
    return this.#pool.sessions;
  }

  /** Signs a provider token (token auth) and opens a session, when there are none yet; never rejects. */
  async warm(): Promise<void> {
    try {
      // The token in hand while it is good; signed only without one.
      await this.#token?.refresh();
    } catch {
      // The sends meet the failure.
    }
    await this.#pool.warm();
  }

  /**
   * Sends one notification and classifies the answer; never rejects. With
   * token auth, an ExpiredProviderToken or InvalidProviderToken answer signs a
   * new token and sends once more. `receipt` gets the status and `apns-id`
   * of the answer.
   */
  async send(delivery: ApnsDelivery, receipt?: DeliveryReceipt): Promise<DeliveryOutcome> {
    const token = this.#token;
    if (token === undefined) return this.#outcome(noted(await this.#pool.exchange(requestOf(delivery, undefined)), receipt));

    let authorization = token.authorization();
    try {
      authorization ??= await token.refresh();
    } catch (error) {
      return authorizationOutcome(error, 'ProviderTokenUnavailable');
    }
    const exchange = noted(await this.#pool.exchange(requestOf(delivery, authorization)), receipt);
    if (exchange.status !== 403) return this.#outcome(exchange);

    const error = readApnsError(exchange.body);
    if (error.reason === undefined || !tokenRejections.has(error.reason) || !token.reject(authorization)) return this.#classify(403, error, exchange.body, undefined);
    try {
      authorization = await token.refresh();
    } catch (refreshError) {
      return authorizationOutcome(refreshError, 'ProviderTokenUnavailable');
    }
    return this.#outcome(noted(await this.#pool.exchange(requestOf(delivery, authorization)), receipt));
  }

  /** Stops taking deliveries, waits for those in flight, closes the sessions; idempotent. */
  close(): Promise<void> {
    return this.#pool.close();
  }

  #outcome(exchange: GatewayAnswer): DeliveryOutcome {
    if (exchange.status === 200) return delivered;
    const failure = exchange.failure;
    if (failure !== undefined) {
      const outcome = noAnswerOutcome(failure);
      if (outcome.reason === 'Other') this.#unknownReasons.failure(failure.reason);
      return outcome;
    }
    const retryAfterMs = parseRetryAfter(exchange.header('retry-after'), this.#clock.now());
    return this.#classify(exchange.status, readApnsError(exchange.body), exchange.body, retryAfterMs);
  }

  /** Classifies an answer; one whose reason reads as Other has its words logged. A failure carries the answer as its cause. */
  #classify(status: number, error: ApnsError, body: Buffer | undefined, retryAfterMs: number | undefined): DeliveryOutcome {
    const outcome = classifyApnsResponse(status, error, retryAfterMs);
    if (outcome.kind === 'delivered') return outcome;
    if (outcome.reason === 'Other') this.#unknownReasons.answer(status, error.reason, body);
    return withAnswerCause(outcome, status, body);
  }
}

/** Notes an answer's status and `apns-id` (the id Apple's tools find a notification by) on the receipt, if any. */
function noted(exchange: GatewayAnswer, receipt: DeliveryReceipt | undefined): GatewayAnswer {
  if (receipt !== undefined) {
    receipt.status = exchange.status;
    receipt.messageId = exchange.status === 0 ? undefined : exchange.header('apns-id');
  }
  return exchange;
}

function requestOf(delivery: ApnsDelivery, authorization: string | undefined): GatewayRequest {
  const headers = ['apns-topic', delivery.topic, 'apns-push-type', delivery.pushType];
  if (authorization !== undefined) headers.push('authorization', authorization);
  if (delivery.priority !== undefined) headers.push('apns-priority', String(delivery.priority));
  if (delivery.expiration !== undefined) headers.push('apns-expiration', String(delivery.expiration));
  if (delivery.collapseId !== undefined) headers.push('apns-collapse-id', delivery.collapseId);
  // The path carries the device token: it changes with every request.
  return { path: `/3/device/${delivery.token}`, pathRepeats: false, headers, body: delivery.payload };
}
