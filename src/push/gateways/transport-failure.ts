import type { DeliveryOutcome } from './delivery.ts';

/** Why an exchange got no answer from the gateway. */
export interface TransportFailure {
  /** Herald's reason word: `Timeout`, `ConnectionLost`, `StreamRefused`, … */
  reason: string;
  /** Whether sending again (on another stream or session) may succeed. */
  retryable: boolean;
}

/** The outcome of a delivery that got no answer. */
export function transportOutcome(failure: TransportFailure): DeliveryOutcome {
  return failure.retryable ? { kind: 'retry', reason: failure.reason } : { kind: 'failed', reason: failure.reason };
}
