import type { Subscription } from '../core/ports/bus.ts';
import type { RoleLifecycle } from './role-lifecycle.ts';
import type { RoleStatus } from './role.ts';

/**
 * The status of a role that consumes a topic: the lifecycle's state, the
 * partitions it owns now (none while its group rebalances, or when the group
 * has more members than partitions: that is idle, not unready), and `failed`
 * once its consumer has stopped for good.
 */
export function consumerStatus(lifecycle: RoleLifecycle, subscription: Subscription | undefined): RoleStatus {
  const stoppedBy = subscription?.stoppedBy() ?? null;
  if (stoppedBy !== null) lifecycle.fail(stoppedBy);
  if (subscription === undefined) return lifecycle.status();
  return lifecycle.status(() => ({ partitions: Object.fromEntries(subscription.assignment().map(({ topic, partitions }) => [topic, partitions])) }));
}
