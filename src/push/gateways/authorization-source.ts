import { errorCause } from '../../http2/h2-failure.ts';
import type { DeliveryReason } from './delivery-reasons.ts';
import type { DeliveryOutcome } from './delivery.ts';

/**
 * The `authorization` header of a token-authenticated gateway: APNs provider
 * tokens, FCM OAuth access tokens. One value serves every request until it
 * ages out; `refresh` makes the next one, once for all concurrent callers.
 */
export interface AuthorizationSource {
  /** The header value while it is fresh, else undefined (call `refresh`). */
  authorization(): string | undefined;
  /** A fresh header value; concurrent calls share one refresh. Rejects with `AuthorizationError`. */
  refresh(): Promise<string>;
  /**
   * The gateway refused `authorization` as expired or invalid. Answers whether
   * sending again with a `refresh()`ed value may help: false when that value was
   * itself just made, so a broken key does not turn into a refresh per request.
   */
  reject(authorization: string): boolean;
}

/** Why no authorization could be had; `retryable` when the token endpoint may answer later. */
export class AuthorizationError extends Error {
  readonly reason: DeliveryReason;
  readonly retryable: boolean;

  #outcome: DeliveryOutcome | undefined;

  constructor(reason: DeliveryReason, message: string, options: { retryable: boolean; cause?: unknown }) {
    super(message, { cause: options.cause });
    this.name = 'AuthorizationError';
    this.reason = reason;
    this.retryable = options.retryable;
  }

  /** The outcome of the deliveries it stops; made once, since a failed fetch answers every delivery of its hold. */
  outcome(): DeliveryOutcome {
    if (this.#outcome === undefined) {
      const { reason } = this;
      const cause = authorizationCause(this);
      this.#outcome = Object.freeze(this.retryable ? { kind: 'retry', reason, cause } : { kind: 'failed', reason, cause });
    }
    return this.#outcome;
  }
}

/**
 * The outcome of a delivery that could not get an authorization header; its
 * cause is the error's message (the token endpoint's answer, or why none
 * came) and that of the error under it.
 */
export function authorizationOutcome(error: unknown, fallbackReason: DeliveryReason): DeliveryOutcome {
  if (error instanceof AuthorizationError) return error.outcome();
  return { kind: 'failed', reason: fallbackReason, cause: authorizationCause(error) };
}

/** An error and the one under it (`token endpoint … unreachable` over `connect ECONNREFUSED …`), once each. */
function authorizationCause(error: unknown): string {
  const said = errorCause(error);
  const under = error instanceof Error ? error.cause : undefined;
  if (under === undefined) return said;
  const beneath = errorCause(under);
  return said.includes(beneath) ? said : `${said}: ${beneath}`;
}
