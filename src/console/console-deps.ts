import type { AccountDeps } from '../accounts/account-deps.ts';
import type { AppRegistry } from '../accounts/app-registry.ts';
import type { ConsoleConfig } from '../config/console-schema.ts';
import type { Metrics } from '../core/metrics.ts';
import type { PushDeps } from '../push/push-deps.ts';
import type { AuditLog } from './audit/audit-log.ts';
import type { DeliveryInsight } from './insight/delivery-insight.ts';

/** What the console needs from the rest of the service: the same rules and adapters the API uses. */
export interface ConsoleDeps {
  config: ConsoleConfig;
  apps: AppRegistry;
  accounts: AccountDeps;
  push: PushDeps;
  /** How often a watched push record is read: the interval of gRPC WatchPush (`grpcWatchIntervalMs`). */
  watchIntervalMs: number;
  /** The process's metrics registry, read for the overview's gateway health. */
  metrics: Metrics;
  /** Where failures and "why didn't this device get it?" come from; default the delivery log (LogDeliveryInsight). */
  insight?: DeliveryInsight;
  /** Where changes are written; default the store (StoreAuditLog). */
  audit?: AuditLog;
}
