import { describeConnectionFailure } from './connection-failure.ts';

/** The backends Herald connects to at start. */
export type BackendName = 'Cassandra' | 'Kafka' | 'Redis';

/**
 * A backend that could not be reached, or refused Herald, while it started
 * (or ran `herald migrate`): the message names the backend, where Herald
 * looked and why it failed, e.g. `Kafka at 10.0.0.5:9094: SASL authentication
 * failed (…)`. Nothing was written to that backend.
 */
export class BackendStartError extends Error {
  readonly backend: BackendName;

  constructor(backend: BackendName, address: string, cause: unknown, attempt: { tls: boolean }) {
    super(`${backend} at ${address}: ${describeConnectionFailure(cause, attempt)}`, { cause });
    this.name = 'BackendStartError';
    this.backend = backend;
  }
}
