import type { CoordinationConfig } from '../config/backends-schema.ts';
import { passwordOf, tlsOptionsOf } from '../config/secret-files.ts';
import type { Clock } from '../core/clock.ts';
import type { Logger } from '../core/logger.ts';
import type { Coordination } from '../core/ports/coordination.ts';
import { MemoryCoordination } from '../coord/memory/memory-coordination.ts';
import { BackendStartError } from './backend-start-error.ts';

/**
 * The configured coordination: in memory (one node only), or Redis shared by
 * every node, once it answers. The one Redis client carries the credentials
 * and TLS settings for everything, redlock's leases included.
 */
export async function openCoordination(config: CoordinationConfig, options: { clock: Clock; logger: Logger }): Promise<Coordination> {
  if (config.kind === 'memory') return new MemoryCoordination({ clock: options.clock });
  const url = config.url ?? '';
  const tls = tlsOptionsOf(config.tls, ['coordination', 'tls']);
  const password = passwordOf(config, ['coordination']);
  // Redis's client is loaded only when configured, like the other backends' clients.
  const { RedisCoordination } = await import('../coord/redis/redis-coordination.ts');
  try {
    return await RedisCoordination.open({
      url,
      username: config.username,
      password,
      tls,
      keyPrefix: config.keyPrefix,
      clock: options.clock,
      logger: options.logger.child({ component: 'redis' }),
    });
  } catch (error) {
    const { host, port, protocol } = new URL(url);
    throw new BackendStartError('Redis', `${host}${port === '' ? ':6379' : ''}`, error, { tls: protocol === 'rediss:' });
  }
}
