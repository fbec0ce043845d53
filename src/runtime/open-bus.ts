import type { BusConfig } from '../config/backends-schema.ts';
import type { Logger } from '../core/logger.ts';
import type { Bus } from '../core/ports/bus.ts';
import { KafkaBus } from '../bus/kafka/kafka-bus.ts';
import { MemoryBus } from '../bus/memory/memory-bus.ts';

/**
 * The configured bus: in-process, or Kafka. A Kafka bus connects on first
 * use, so an API node starts while Kafka is away and `/readyz` says so.
 */
export function openBus(config: BusConfig, logger: Logger): Bus {
  const busLogger = logger.child({ component: 'bus' });
  if (config.kind === 'memory') return new MemoryBus({ logger: busLogger });
  return new KafkaBus({ brokers: config.brokers ?? [], clientId: config.clientId, logger: busLogger });
}
