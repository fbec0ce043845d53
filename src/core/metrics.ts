import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import type { AccountMetrics } from '../accounts/account-metrics.ts';
import { LabelledHistogram } from './labelled-histogram.ts';
import type { GatewayName } from '../push/gateways/delivery.ts';
import type { GatewayMetrics } from '../push/gateways/gateway-metrics.ts';
import type { PushApiMetrics } from '../push/push-deps.ts';
import type { SenderMetrics } from '../push/sender/sender-metrics.ts';
import type { TalliedOutcome } from '../push/sender/delivery-tally.ts';

const gatewayNames: readonly GatewayName[] = ['apns', 'fcm'];
const talliedOutcomes: readonly TalliedOutcome[] = ['delivered', 'invalid-token', 'failed', 'not-sent'];

/** Reads the consumer lag of each group and topic this process consumes, at scrape time. */
export type LagReader = () => Promise<{ group: string; topic: string; lag: number }[]>;

/** Reads whether each backend of this process answers (what `/readyz` reports), at scrape time. */
export type DependencyReader = () => Promise<{ dependency: string; required: boolean; up: boolean }[]>;

/**
 * The one owner of prom-client in a process: a registry with the process
 * metrics and Herald's own, labelled by route, gateway and outcome rather
 * than named after them. Components get the narrow interfaces they report
 * through (`accounts`, `pushApi`, `gateways`, `sender`).
 */
export class Metrics {
  readonly registry = new Registry();
  readonly httpRequestSeconds: Histogram<'method' | 'route' | 'status'>;
  readonly accounts: AccountMetrics;
  readonly pushApi: PushApiMetrics;
  readonly gateways: GatewayMetrics;
  readonly sender: SenderMetrics;
  readonly scheduledLatenessSeconds: Histogram;
  /** 1 while this process leads the scheduler, else 0 (also in processes without the role), so that "no scheduler leads" is a query, not an absence. */
  readonly schedulerLeading: Gauge;
  readonly #lagReaders: LagReader[] = [];
  #dependencies: DependencyReader | undefined;

  constructor() {
    const registers = [this.registry];
    collectDefaultMetrics({ register: this.registry, prefix: 'herald_' });
    this.httpRequestSeconds = new Histogram({
      name: 'herald_http_request_duration_seconds',
      help: 'HTTP requests by method, route template and status',
      labelNames: ['method', 'route', 'status'],
      buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5],
      registers,
    });
    this.accounts = accountMetrics(registers);

    const accepted = new Counter({ name: 'herald_pushes_accepted_total', help: 'Pushes accepted by the API, by app and when they go out', labelNames: ['app', 'when'], registers });
    this.pushApi = { accepted: (app, when) => accepted.inc({ app, when }) };

    const deliveries = new Counter({
      name: 'herald_push_deliveries_total',
      help: 'Deliveries by gateway and final outcome (delivered, invalid-token, failed, not-sent)',
      labelNames: ['gateway', 'outcome'],
      registers,
    });
    // Every series at zero from the start, so the first deliveries show in rate() and an idle sender reads 0, not nothing.
    for (const gateway of gatewayNames) for (const outcome of talliedOutcomes) deliveries.inc({ gateway, outcome }, 0);
    const inFlight = new Gauge({ name: 'herald_push_tasks_in_flight', help: 'Task slices being worked on by the senders of this process', registers });
    const window = new Gauge({
      name: 'herald_push_delivery_window',
      help: 'Deliveries the senders of this process may have in flight to a gateway now (sized between push.deliveryWindow min and max)',
      labelNames: ['gateway'],
      registers,
    });
    this.sender = {
      // Called once per slice and outcome (the sender tallies its deliveries), not per delivery.
      delivery: (gateway, outcome, count) => deliveries.inc({ gateway, outcome }, count),
      sliceStarted: () => inFlight.inc(),
      sliceEnded: () => inFlight.dec(),
      deliveryWindow: (gateway, size) => window.set({ gateway }, size),
    };
    this.gateways = gatewayMetrics(registers);

    this.scheduledLatenessSeconds = new Histogram({
      name: 'herald_scheduled_push_lateness_seconds',
      help: 'Time from a scheduled push_time to the push being handed to the fan-out',
      buckets: [0.1, 0.5, 1, 2, 5, 10, 30, 60, 300],
      registers,
    });
    this.schedulerLeading = new Gauge({ name: 'herald_scheduler_leading', help: 'Whether this process leads the scheduler (1) or not (0)', registers });
    const readers = this.#lagReaders;
    new Gauge({
      name: 'herald_bus_consumer_lag',
      help: 'Messages not yet handled by a consumer group, by group and topic',
      labelNames: ['group', 'topic'],
      registers,
      async collect() {
        this.reset();
        for (const read of readers) {
          try {
            for (const { group, topic, lag } of await read()) this.set({ group, topic }, lag);
          } catch {
            // The bus is away: no figure rather than a failed scrape.
          }
        }
      },
    });
    // An arrow function: collect() gets the gauge as `this`, and the reader is set after construction.
    const dependencies = () => this.#dependencies;
    new Gauge({
      name: 'herald_dependency_up',
      help: 'Whether a backend answers the readiness check of this process (1) or not (0), by dependency and whether the process needs it',
      labelNames: ['dependency', 'required'],
      registers,
      async collect() {
        this.reset();
        const read = dependencies();
        if (read === undefined) return;
        for (const { dependency, required, up } of await read()) this.set({ dependency, required: String(required) }, up ? 1 : 0);
      },
    });
  }

  /**
   * Reports `herald_dependency_up{dependency,required}` from `read`: 1 while
   * the backend answers, 0 while it does not. `required` is false for a
   * backend this process works without (the bus of an api-only node).
   */
  watchDependencies(read: DependencyReader): void {
    this.#dependencies = read;
  }

  /** Adds a consumer whose lag the registry reports. */
  addLagReader(read: LagReader): void {
    this.#lagReaders.push(read);
  }

  text(): Promise<string> {
    return this.registry.metrics();
  }

  get contentType(): string {
    return this.registry.contentType;
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
  const retries = new Counter({ name: 'herald_push_retries_total', help: 'Deliveries sent again after a retryable answer, by gateway and reason', labelNames: ['gateway', 'reason'], registers });
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
    retried: (gateway, reason) => retries.inc({ gateway, reason }),
  };
}
