import type { CoordinationConfig } from '../config/backends-schema.ts';
import type { Clock } from '../core/clock.ts';
import type { Logger } from '../core/logger.ts';
import type { Coordination } from '../core/ports/coordination.ts';
import { MemoryCoordination } from '../coord/memory/memory-coordination.ts';

/** The configured coordination: in memory (one node only), or Redis shared by every node, once it answers. */
export async function openCoordination(config: CoordinationConfig, options: { clock: Clock; logger: Logger }): Promise<Coordination> {
  if (config.kind === 'memory') return new MemoryCoordination({ clock: options.clock });
  // Redis's client is loaded only when configured, like the other backends' clients.
  const { RedisCoordination } = await import('../coord/redis/redis-coordination.ts');
  return RedisCoordination.open({ url: config.url, keyPrefix: config.keyPrefix, clock: options.clock, logger: options.logger.child({ component: 'redis' }) });
}
