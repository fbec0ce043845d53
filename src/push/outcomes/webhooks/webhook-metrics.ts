/** Why events meant for an endpoint were dropped: its queue was full, its batch was retried for `retryForMs`, or the process stopped first. */
export type WebhookDropReason = 'queue_full' | 'retry_expired' | 'shutdown';

/** What became of one POST, as the requests metric labels it. */
export type WebhookRequestResult = '2xx' | '3xx' | '4xx' | '429' | '5xx' | 'timeout' | 'unreachable';

/**
 * What webhooks count: `herald_webhook_events_delivered_total{app,endpoint}`,
 * `herald_webhook_events_dropped_total{app,endpoint,reason}`,
 * `herald_webhook_requests_total{app,endpoint,result}` and
 * `herald_webhook_queued_events{app,endpoint}`. `endpoint` is the
 * configured name, so every label is bounded by the config.
 */
export interface WebhookMetrics {
  delivered(app: string, endpoint: string, count: number): void;
  dropped(app: string, endpoint: string, reason: WebhookDropReason, count: number): void;
  request(app: string, endpoint: string, result: WebhookRequestResult): void;
  /** Reads the endpoint's queue at each scrape; answers the function that stops it. */
  trackQueue(app: string, endpoint: string, read: () => number): () => void;
}

export const noopWebhookMetrics: WebhookMetrics = {
  delivered: () => {},
  dropped: () => {},
  request: () => {},
  trackQueue: () => () => {},
};

/** The requests metric's word for an HTTP status. */
export function requestResultOf(status: number): WebhookRequestResult {
  if (status === 429) return '429';
  if (status >= 200 && status < 300) return '2xx';
  if (status >= 300 && status < 400) return '3xx';
  if (status >= 400 && status < 500) return '4xx';
  return '5xx';
}
