import type { DeliveryLogConfig } from '../../config/delivery-log-schema.ts';
import type { Clock } from '../../core/clock.ts';
import type { Store } from '../../core/ports/object-store.ts';

/** What reading the delivery log needs: the REST and gRPC routes hand it their push deps, the console its own. */
export interface DeliveryLogDeps {
  store: Pick<Store, 'pushes' | 'deliveries' | 'installations'>;
  clock: Clock;
  settings: { retentionDays: number; idleInstallationDays: number; deliveryLog: DeliveryLogConfig };
}
