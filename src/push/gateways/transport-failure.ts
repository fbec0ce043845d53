import type { DeliveryOutcome } from './delivery.ts';

/** Why an exchange got no answer from the gateway. */
export interface TransportFailure {
  /** Herald's reason word: `Timeout`, `ConnectionLost`, `StreamRefused`, … */
  reason: string;
  /** Whether sending again (on another stream or session) may succeed. */
  retryable: boolean;
  /** What the system or the peer said (`connect ECONNREFUSED …`, a TLS verification error); for logs, made only on failure. */
  cause?: string;
}

/** The outcome of a delivery that got no answer. */
export function transportOutcome(failure: TransportFailure): DeliveryOutcome {
  return failure.retryable ? { kind: 'retry', reason: failure.reason, cause: failure.cause } : { kind: 'failed', reason: failure.reason, cause: failure.cause };
}
