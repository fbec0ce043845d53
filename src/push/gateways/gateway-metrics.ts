import type { GatewayName } from './delivery.ts';

/**
 * What the gateway clients report, for `herald_gateway_request_duration_seconds`,
 * `herald_gateway_sessions`, `herald_gateway_streams` and
 * `herald_push_retries_total`. Only `observeLatency` runs once per request;
 * streams in flight are read at scrape time instead of counted per request.
 */
export interface GatewayMetrics {
  /** Time from sending a request to the gateway's answer; one observation per answered attempt. */
  observeLatency(gateway: GatewayName, seconds: number): void;
  /** An HTTP/2 session to a gateway finished its handshake. */
  sessionOpened(gateway: GatewayName): void;
  /** A session counted by `sessionOpened` closed (GOAWAY, dead connection, shutdown). */
  sessionClosed(gateway: GatewayName): void;
  /**
   * Registers a reader of one client's streams in flight (requests sent or
   * waiting for a stream); sum the readers of a gateway at scrape time. Answers
   * a function that unregisters it, called when the client closes.
   */
  trackStreams(gateway: GatewayName, read: () => number): () => void;
  /** `deliverWithRetry` is about to send a delivery again after a `retry` outcome with this reason. */
  retried(gateway: GatewayName, reason: string): void;
}

const untrack = (): void => {};

/** Metrics that go nowhere; for tests and tools. */
export const noopGatewayMetrics: GatewayMetrics = {
  observeLatency: () => {},
  sessionOpened: () => {},
  sessionClosed: () => {},
  trackStreams: () => untrack,
  retried: () => {},
};
