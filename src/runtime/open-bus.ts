import type { BusConfig } from '../config/backends-schema.ts';
import type { Logger } from '../core/logger.ts';
import type { Bus } from '../core/ports/bus.ts';
import { MemoryBus } from '../bus/memory/memory-bus.ts';
import { topicSpecs } from './topic-specs.ts';

/**
 * The configured bus, in-process or Kafka, with Herald's topics created (an
 * existing topic keeps its partitions). Fails when Kafka cannot be reached.
 */
export async function openBus(config: BusConfig, logger: Logger): Promise<Bus> {
  const busLogger = logger.child({ component: 'bus' });
  // Kafka's client is loaded only when configured: the embedded default never pays for its memory.
  const bus =
    config.kind === 'memory'
      ? new MemoryBus({ logger: busLogger })
      : new (await import('../bus/kafka/kafka-bus.ts')).KafkaBus({
          brokers: config.brokers ?? [],
          clientId: config.clientId,
          logger: busLogger,
          sessionTimeoutMs: config.sessionTimeoutMs,
          // A third of the session timeout, as Kafka advises.
          heartbeatIntervalMs: Math.floor(config.sessionTimeoutMs / 3),
        });
  try {
    await bus.ensureTopics(topicSpecs(config));
  } catch (error) {
    await bus.close();
    throw error;
  }
  return bus;
}
