import type { Clock } from '../../core/clock.ts';
import type { DeliveryOutcome, DeliveryReceipt, GatewayClient, GatewayName } from '../gateways/delivery.ts';

/** The outcome of a delivery whose push expired before it could be sent; counted like the sender's own `Expired`. */
const expired: DeliveryOutcome = Object.freeze({ kind: 'failed', reason: 'Expired', cause: "the push's expiration_time passed before it was sent" });

/**
 * One device's delivery as `deliverWithRetry` sends it: the gateway's client,
 * counting the sends and keeping the last answer's status and message id (the
 * delivery event's `attempts`, `status`, `messageId` and `latencyMs`), and
 * answering `Expired` without sending once the push has expired (SPEC.md:
 * expired messages are never sent): a resend after a timeout, or a send that
 * waited for flow_control tokens, can come after the expiry the slice checked
 * when it started. One small object per delivery.
 */
export class TrackedSend<D> implements GatewayClient<D>, DeliveryReceipt {
  readonly gateway: GatewayName;
  /** Sends that reached the client, the first included. */
  attempts = 0;
  status = 0;
  messageId: string | undefined = undefined;
  /** `performance.now()` at the first send; 0 before it. */
  startedAt = 0;
  readonly #client: GatewayClient<D>;
  readonly #expiresAt: number | null;
  readonly #clock: Clock;

  constructor(client: GatewayClient<D>, expiresAt: number | null, clock: Clock) {
    this.gateway = client.gateway;
    this.#client = client;
    this.#expiresAt = expiresAt;
    this.#clock = clock;
  }

  send(delivery: D): Promise<DeliveryOutcome> {
    if (this.#expiresAt !== null && this.#clock.now() >= this.#expiresAt) return Promise.resolve(expired);
    if (this.attempts === 0) this.startedAt = performance.now();
    this.attempts += 1;
    this.status = 0;
    this.messageId = undefined;
    return this.#client.send(delivery, this);
  }

  /** From the first send until now, ms in steps of 0.1; 0 when nothing was sent. */
  latencyMs(): number {
    return this.attempts === 0 ? 0 : Math.round((performance.now() - this.startedAt) * 10) / 10;
  }
}
