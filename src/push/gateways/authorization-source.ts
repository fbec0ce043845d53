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

  constructor(reason: DeliveryReason, message: string, options: { retryable: boolean; cause?: unknown }) {
    super(message, { cause: options.cause });
    this.name = 'AuthorizationError';
    this.reason = reason;
    this.retryable = options.retryable;
  }
}

/** The outcome of a delivery that could not get an authorization header. */
export function authorizationOutcome(error: unknown, fallbackReason: DeliveryReason): DeliveryOutcome {
  if (error instanceof AuthorizationError) return error.retryable ? { kind: 'retry', reason: error.reason } : { kind: 'failed', reason: error.reason };
  return { kind: 'failed', reason: fallbackReason };
}
