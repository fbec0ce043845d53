import type { Clock } from '../../core/clock.ts';
import { withAnswerCause } from './answer-cause.ts';
import { authorizationOutcome, type AuthorizationSource } from './authorization-source.ts';
import { classifyFcmResponse, readFcmError, type FcmError } from './classify-fcm-response.ts';
import { noAnswerOutcome } from './delivery-reasons.ts';
import { delivered, type DeliveryOutcome, type DeliveryReceipt, type FcmDelivery, type GatewayClient } from './delivery.ts';
import { FcmAccessToken } from './fcm-access-token.ts';
import { compileFcmClientOptions, type FcmClientOptions } from './fcm-client-options.ts';
import { createGatewayTransport } from './create-gateway-transport.ts';
import type { GatewayAnswer, GatewayRequest, GatewayTransport } from './gateway-transport.ts';
import { parseRetryAfter } from './retry-after.ts';
import { UnknownReasonLog } from './unknown-reason-log.ts';

/**
 * Sends messages to FCM HTTP v1 (`POST /v1/projects/<id>/messages:send`)
 * over pooled HTTP/2 sessions with an OAuth2 access token of the app's
 * service account, and classifies every answer.
 */
export class FcmClient implements GatewayClient<FcmDelivery> {
  readonly gateway = 'fcm';
  readonly projectId: string;
  readonly endpoint: string;
  readonly #pool: GatewayTransport;
  readonly #accessToken: AuthorizationSource;
  readonly #clock: Clock;
  readonly #unknownReasons: UnknownReasonLog;
  readonly #path: string;
  /** Every request carries the same headers until the token changes, so they are built once per token. */
  #headers: { authorization: string; list: readonly string[] } | undefined;

  constructor(options: FcmClientOptions) {
    const compiled = compileFcmClientOptions(options);
    this.projectId = compiled.account.projectId;
    this.endpoint = compiled.endpoint;
    this.#clock = compiled.clock;
    this.#unknownReasons = new UnknownReasonLog({ gateway: 'fcm', logger: compiled.logger, clock: compiled.clock });
    this.#path = `/v1/projects/${encodeURIComponent(compiled.account.projectId)}/messages:send`;
    this.#pool = createGatewayTransport(compiled.transport, {
      gateway: 'fcm',
      origin: compiled.endpoint,
      tls: compiled.ca === undefined ? {} : { ca: compiled.ca },
      sessions: compiled.sessions,
      requestTimeoutMs: compiled.requestTimeoutMs,
      pingIntervalMs: compiled.pingIntervalMs,
      metrics: compiled.metrics,
      logger: compiled.logger,
    });
    this.#accessToken =
      compiled.accessToken ??
      new FcmAccessToken({ account: compiled.account, clock: compiled.clock, ca: compiled.ca, requestTimeoutMs: compiled.requestTimeoutMs, logger: compiled.logger });
  }

  get inFlight(): number {
    return this.#pool.inFlight;
  }

  get sessions(): number {
    return this.#pool.sessions;
  }

  /** Fetches an access token and opens a session, when there are none yet; never rejects. */
  async warm(): Promise<void> {
    try {
      // A source other than FcmAccessToken may fetch on every refresh: only without a token in hand.
      if (this.#accessToken.authorization() === undefined) await this.#accessToken.refresh();
    } catch {
      // The sends meet the failure.
    }
    await this.#pool.warm();
  }

  /**
   * Sends one message and classifies the answer; never rejects. A 401 (other
   * than THIRD_PARTY_AUTH_ERROR, which is about the app's APNs credentials at
   * Google) gets a new access token and one more try. `receipt` gets the
   * answer's status (FCM's message name is in a 200's body, which the
   * transports do not keep).
   */
  async send(delivery: FcmDelivery, receipt?: DeliveryReceipt): Promise<DeliveryOutcome> {
    let authorization = this.#accessToken.authorization();
    try {
      authorization ??= await this.#accessToken.refresh();
    } catch (error) {
      return authorizationOutcome(error, 'AccessTokenUnavailable');
    }
    const exchange = await this.#pool.exchange(this.#requestFor(authorization, delivery.body));
    if (receipt !== undefined) receipt.status = exchange.status;
    if (exchange.status !== 401) return this.#outcome(exchange);

    const error = readFcmError(exchange.body);
    if (error.errorCode === 'THIRD_PARTY_AUTH_ERROR' || !this.#accessToken.reject(authorization)) return this.#classify(401, error, exchange.body, undefined);
    try {
      authorization = await this.#accessToken.refresh();
    } catch (refreshError) {
      return authorizationOutcome(refreshError, 'AccessTokenUnavailable');
    }
    const again = await this.#pool.exchange(this.#requestFor(authorization, delivery.body));
    if (receipt !== undefined) receipt.status = again.status;
    return this.#outcome(again);
  }

  /** Stops taking deliveries, waits for those in flight, closes the sessions; idempotent. */
  close(): Promise<void> {
    return this.#pool.close();
  }

  #requestFor(authorization: string, body: Buffer): GatewayRequest {
    let headers = this.#headers;
    if (headers === undefined || headers.authorization !== authorization) {
      headers = { authorization, list: ['authorization', authorization, 'content-type', 'application/json'] };
      this.#headers = headers;
    }
    return { path: this.#path, pathRepeats: true, headers: headers.list, body };
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
    return this.#classify(exchange.status, readFcmError(exchange.body), exchange.body, retryAfterMs);
  }

  /** Classifies an answer; one whose reason reads as Other has its words logged. A failure carries the answer as its cause. */
  #classify(status: number, error: FcmError, body: Buffer | undefined, retryAfterMs: number | undefined): DeliveryOutcome {
    const outcome = classifyFcmResponse(status, error, retryAfterMs);
    if (outcome.kind === 'delivered') return outcome;
    if (outcome.reason === 'Other') this.#unknownReasons.answer(status, error.errorCode ?? error.status, body);
    return withAnswerCause(outcome, status, body);
  }
}
