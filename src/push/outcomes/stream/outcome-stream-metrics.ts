/** Why delivery events never reached the outcome stream: the buffer stayed full past `maxWaitMs`, or the process stopped first. */
export type OutcomeDropReason = 'buffer_full' | 'shutdown';

/**
 * What the outcome stream counts: `herald_outcome_stream_events_produced_total`
 * (produced), `herald_outcome_stream_events_dropped_total{reason}`,
 * `herald_outcome_stream_produce_failures_total` and
 * `herald_outcome_stream_pending_events`.
 */
export interface OutcomeStreamMetrics {
  produced(count: number): void;
  dropped(reason: OutcomeDropReason, count: number): void;
  /** A produce call that failed after the producer's own retries; its batch is sent again. */
  produceFailed(): void;
  /** Reads the buffer at each scrape; answers the function that stops it. */
  trackPending(read: () => number): () => void;
}

export const noopOutcomeStreamMetrics: OutcomeStreamMetrics = {
  produced: () => {},
  dropped: () => {},
  produceFailed: () => {},
  trackPending: () => () => {},
};
