import { Counter, Gauge, type Registry } from 'prom-client';
import type { AccountMetrics } from '../accounts/account-metrics.ts';
import { LabelledHistogram } from '../core/labelled-histogram.ts';
import { Metrics } from '../core/metrics.ts';
import { deliveryReasons, otherReason } from '../push/gateways/delivery-reasons.ts';
import { gatewayNames, type GatewayName } from '../push/gateways/delivery.ts';
import type { GatewayMetrics } from '../push/gateways/gateway-metrics.ts';
import type { OutcomeStreamMetrics } from '../push/outcomes/stream/outcome-stream-metrics.ts';
import type { WebhookMetrics } from '../push/outcomes/webhooks/webhook-metrics.ts';
import type { PushApiMetrics } from '../push/push-deps.ts';
import { talliedOutcomes } from '../push/sender/delivery-tally.ts';
import type { SenderMetrics } from '../push/sender/sender-metrics.ts';

/**
 * The process's metrics with the account and push ones: each registered on
 * the shared registry and labelled by gateway and outcome rather than named
 * after them. Components get the narrow interface they report through
 * (`accounts`, `pushApi`, `gateways`, `sender`, `webhooks`, `outcomeStream`),
 * never prom-client.
 */
export class HeraldMetrics extends Metrics {
  readonly accounts: AccountMetrics;
  readonly pushApi: PushApiMetrics;
  readonly gateways: GatewayMetrics;
  readonly sender: SenderMetrics;
  readonly webhooks: WebhookMetrics;
  readonly outcomeStream: OutcomeStreamMetrics;

  constructor() {
    super();
    const registers = [this.registry];
    this.accounts = accountMetrics(registers);
    this.pushApi = pushApiMetrics(registers);
    this.sender = senderMetrics(registers);
    this.gateways = gatewayMetrics(registers);
    this.webhooks = webhookMetrics(registers);
    this.outcomeStream = outcomeStreamMetrics(registers);
  }
}

function accountMetrics(registers: Registry[]): AccountMetrics {
  const credentialsRejected = new Counter({
    name: 'herald_login_failures_total',
    help: 'Wrong passwords and SMS codes, by app and credential',
    labelNames: ['app', 'credential'],
    registers,
  });
  const accountsLocked = new Counter({ name: 'herald_account_locks_total', help: 'Accounts locked after too many failed logins, by app', labelNames: ['app'], registers });
  const smsRefused = new Counter({ name: 'herald_sms_refused_total', help: 'Requests for SMS codes refused by a limit, by app and limit', labelNames: ['app', 'reason'], registers });
  return {
    credentialRejected: (app, credential) => credentialsRejected.inc({ app, credential }),
    accountLocked: (app) => accountsLocked.inc({ app }),
    smsRefused: (app, reason) => smsRefused.inc({ app, reason }),
  };
}

function pushApiMetrics(registers: Registry[]): PushApiMetrics {
  const accepted = new Counter({ name: 'herald_pushes_accepted_total', help: 'Pushes accepted by the API, by app and when they go out', labelNames: ['app', 'when'], registers });
  return { accepted: (app, when) => accepted.inc({ app, when }) };
}

function senderMetrics(registers: Registry[]): SenderMetrics {
  const deliveries = new Counter({
    name: 'herald_push_deliveries_total',
    help: 'Deliveries by gateway and final outcome (delivered, invalid-token, failed, not-sent)',
    labelNames: ['gateway', 'outcome'],
    registers,
  });
  // Every series at zero from the start, so the first deliveries show in rate() and an idle sender reads 0, not nothing.
  for (const gateway of gatewayNames) for (const outcome of talliedOutcomes) deliveries.inc({ gateway, outcome }, 0);
  // Series by reason appear with the first device a reason ends; the reasons are the documented set, so they stay bounded.
  const failures = new Counter({
    name: 'herald_push_failures_total',
    help: 'Devices not delivered, by gateway, final outcome (invalid-token, failed, not-sent) and reason (the documented set, Other beyond it)',
    labelNames: ['gateway', 'outcome', 'reason'],
    registers,
  });
  const inFlight = new Gauge({ name: 'herald_push_tasks_in_flight', help: 'Task slices being worked on by the senders of this process', registers });
  const window = new Gauge({
    name: 'herald_push_delivery_window',
    help: 'Deliveries the senders of this process may have in flight to a gateway now (sized between push.deliveryWindow min and max)',
    labelNames: ['gateway'],
    registers,
  });
  return {
    // Called once per slice and outcome (the sender tallies its deliveries), not per delivery.
    delivery: (gateway, outcome, count) => deliveries.inc({ gateway, outcome }, count),
    // Once per slice, outcome and reason met.
    failure: (gateway, outcome, reason, count) => failures.inc({ gateway, outcome, reason: boundedReason(reason) }, count),
    sliceStarted: () => inFlight.inc(),
    sliceEnded: () => inFlight.dec(),
    deliveryWindow: (gateway, size) => window.set({ gateway }, size),
  };
}

const documentedReasons: ReadonlySet<string> = new Set(deliveryReasons);

/**
 * A reason label from the documented set: the reasons reach the metrics
 * bounded already (the classifiers map every outside word to `Other`), and
 * this keeps a label from growing a series per word should a new gateway
 * forget to.
 */
function boundedReason(reason: string): string {
  return documentedReasons.has(reason) ? reason : otherReason;
}

function gatewayMetrics(registers: Registry[]): GatewayMetrics {
  // Observed once per request: a histogram that skips prom-client's per-call label checks.
  const latency = new LabelledHistogram<GatewayName>({
    name: 'herald_gateway_request_duration_seconds',
    help: 'Time from sending a request to a push gateway to its answer',
    label: 'gateway',
    values: gatewayNames,
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers,
  });
  const sessions = new Gauge({ name: 'herald_gateway_sessions', help: 'Open HTTP/2 sessions to the push gateways', labelNames: ['gateway'], registers });
  const retries = new Counter({
    name: 'herald_push_retries_total',
    help: 'Deliveries sent again after a retryable answer, by gateway and reason (the documented set, Other beyond it)',
    labelNames: ['gateway', 'reason'],
    registers,
  });
  const streamReaders = new Set<{ gateway: GatewayName; read: () => number }>();
  new Gauge({
    name: 'herald_gateway_streams',
    help: 'Requests to the push gateways in flight or waiting for a stream',
    labelNames: ['gateway'],
    registers,
    collect() {
      this.reset();
      const totals = new Map<GatewayName, number>();
      for (const { gateway, read } of streamReaders) totals.set(gateway, (totals.get(gateway) ?? 0) + read());
      for (const [gateway, streams] of totals) this.set({ gateway }, streams);
    },
  });
  return {
    observeLatency: (gateway, seconds) => latency.observe(gateway, seconds),
    sessionOpened: (gateway) => sessions.inc({ gateway }),
    sessionClosed: (gateway) => sessions.dec({ gateway }),
    trackStreams: (gateway, read) => {
      const reader = { gateway, read };
      streamReaders.add(reader);
      return () => streamReaders.delete(reader);
    },
    retried: (gateway, reason) => retries.inc({ gateway, reason: boundedReason(reason) }),
  };
}

function webhookMetrics(registers: Registry[]): WebhookMetrics {
  // Labels are the app and the endpoint's configured name, both bounded by the config.
  const delivered = new Counter({
    name: 'herald_webhook_events_delivered_total',
    help: 'Webhook events an endpoint accepted (a 2xx answer to their batch), by app and endpoint',
    labelNames: ['app', 'endpoint'],
    registers,
  });
  const dropped = new Counter({
    name: 'herald_webhook_events_dropped_total',
    help: 'Webhook events never delivered, by app, endpoint and reason: queue_full, retry_expired, shutdown',
    labelNames: ['app', 'endpoint', 'reason'],
    registers,
  });
  const requests = new Counter({
    name: 'herald_webhook_requests_total',
    help: 'POSTs of webhook batches by app, endpoint and result: 2xx, 3xx, 4xx, 429, 5xx, timeout, unreachable',
    labelNames: ['app', 'endpoint', 'result'],
    registers,
  });
  const queues = new Set<{ app: string; endpoint: string; read: () => number }>();
  new Gauge({
    name: 'herald_webhook_queued_events',
    help: 'Webhook events waiting or in flight in this process, by app and endpoint',
    labelNames: ['app', 'endpoint'],
    registers,
    collect() {
      this.reset();
      for (const { app, endpoint, read } of queues) this.set({ app, endpoint }, read());
    },
  });
  return {
    delivered: (app, endpoint, count) => delivered.inc({ app, endpoint }, count),
    dropped: (app, endpoint, reason, count) => dropped.inc({ app, endpoint, reason }, count),
    request: (app, endpoint, result) => requests.inc({ app, endpoint, result }),
    trackQueue: (app, endpoint, read) => {
      const queue = { app, endpoint, read };
      queues.add(queue);
      // Every series at zero from the start, so that rate() sees the first events and drops.
      delivered.inc({ app, endpoint }, 0);
      for (const reason of ['queue_full', 'retry_expired', 'shutdown']) dropped.inc({ app, endpoint, reason }, 0);
      return () => queues.delete(queue);
    },
  };
}

function outcomeStreamMetrics(registers: Registry[]): OutcomeStreamMetrics {
  const produced = new Counter({ name: 'herald_outcome_stream_events_produced_total', help: 'Delivery events produced on the outcome stream (push.outcomes)', registers });
  const dropped = new Counter({
    name: 'herald_outcome_stream_events_dropped_total',
    help: 'Delivery events that never reached the outcome stream, by reason: buffer_full, shutdown',
    labelNames: ['reason'],
    registers,
  });
  const failures = new Counter({
    name: 'herald_outcome_stream_produce_failures_total',
    help: 'Produce calls of the outcome stream that failed after the producer\'s retries (the batch is produced again)',
    registers,
  });
  const readers = new Set<() => number>();
  new Gauge({
    name: 'herald_outcome_stream_pending_events',
    help: 'Delivery events buffered for the outcome stream in this process',
    registers,
    collect() {
      let pending = 0;
      for (const read of readers) pending += read();
      this.set(pending);
    },
  });
  return {
    produced: (count) => produced.inc(count),
    dropped: (reason, count) => dropped.inc({ reason }, count),
    produceFailed: () => failures.inc(),
    trackPending: (read) => {
      readers.add(read);
      for (const reason of ['buffer_full', 'shutdown']) dropped.inc({ reason }, 0);
      return () => readers.delete(read);
    },
  };
}
