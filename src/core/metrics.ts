import { Counter, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import type { AccountMetrics } from '../accounts/account-metrics.ts';

/**
 * The one owner of prom-client in a process: a registry with the process
 * metrics and Herald's own, labelled by route and outcome rather than named
 * after them.
 */
export class Metrics {
  readonly registry = new Registry();
  readonly httpRequestSeconds: Histogram<'method' | 'route' | 'status'>;
  readonly accounts: AccountMetrics;

  constructor() {
    collectDefaultMetrics({ register: this.registry, prefix: 'herald_' });
    this.httpRequestSeconds = new Histogram({
      name: 'herald_http_request_duration_seconds',
      help: 'HTTP requests by method, route template and status',
      labelNames: ['method', 'route', 'status'],
      buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5],
      registers: [this.registry],
    });
    const credentialsRejected = new Counter({
      name: 'herald_login_failures_total',
      help: 'Wrong passwords and SMS codes, by app and credential',
      labelNames: ['app', 'credential'],
      registers: [this.registry],
    });
    const accountsLocked = new Counter({
      name: 'herald_account_locks_total',
      help: 'Accounts locked after too many failed logins, by app',
      labelNames: ['app'],
      registers: [this.registry],
    });
    const smsRefused = new Counter({
      name: 'herald_sms_refused_total',
      help: 'Requests for SMS codes refused by a limit, by app and limit',
      labelNames: ['app', 'reason'],
      registers: [this.registry],
    });
    this.accounts = {
      credentialRejected: (app, credential) => credentialsRejected.inc({ app, credential }),
      accountLocked: (app) => accountsLocked.inc({ app }),
      smsRefused: (app, reason) => smsRefused.inc({ app, reason }),
    };
  }

  text(): Promise<string> {
    return this.registry.metrics();
  }

  get contentType(): string {
    return this.registry.contentType;
  }
}
