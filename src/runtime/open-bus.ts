import type { BusConfig } from '../config/backends-schema.ts';
import { passwordOf, tlsOptionsOf } from '../config/secret-files.ts';
import { ServiceUnavailableError } from '../core/errors.ts';
import type { Logger } from '../core/logger.ts';
import type { Bus } from '../core/ports/bus.ts';
import type { KafkaBusOptions } from '../bus/kafka/kafka-bus-options.ts';
import { MemoryBus } from '../bus/memory/memory-bus.ts';
import { BackendStartError } from './backend-start-error.ts';
import { topicSpecs } from './topic-specs.ts';

/**
 * The configured bus, in-process or Kafka, with Herald's topics created (an
 * existing topic keeps its partitions). Fails when Kafka cannot be reached,
 * with a BackendStartError saying why.
 */
export async function openBus(config: BusConfig, logger: Logger): Promise<Bus> {
  const busLogger = logger.child({ component: 'bus' });
  if (config.kind === 'memory') {
    const bus = new MemoryBus({ logger: busLogger });
    await bus.ensureTopics(topicSpecs(config));
    return bus;
  }
  const options = kafkaBusOptions(config, busLogger);
  if (options.sasl?.mechanism === 'plain' && options.tls === undefined) {
    busLogger.warn({ brokers: options.brokers }, 'SASL PLAIN without TLS: the Kafka password crosses the network as it is; turn TLS on');
  }
  // Kafka's client is loaded only when configured: the embedded default never pays for its memory.
  const bus = new (await import('../bus/kafka/kafka-bus.ts')).KafkaBus(options);
  try {
    await bus.ensureTopics(topicSpecs(config));
  } catch (error) {
    await bus.close();
    if (!(error instanceof ServiceUnavailableError)) throw error;
    throw new BackendStartError('Kafka', options.brokers.join(', '), error, { tls: options.tls !== undefined });
  }
  return bus;
}

/** The Kafka bus options of a config, the password and TLS files read (a ConfigError names a setting whose file is unusable). */
export function kafkaBusOptions(config: BusConfig, logger: Logger): KafkaBusOptions {
  const { sasl } = config;
  return {
    brokers: config.brokers ?? [],
    clientId: config.clientId,
    logger,
    tls: tlsOptionsOf(config.tls, ['bus', 'tls']),
    sasl: sasl === undefined ? undefined : { mechanism: sasl.mechanism, username: sasl.username, password: passwordOf(sasl, ['bus', 'sasl']) ?? '' },
    replicationFactor: config.replicationFactor,
    minInsyncReplicas: config.minInsyncReplicas,
    idempotent: config.idempotentProducer,
    maxInFlightRequests: config.maxInFlightRequests,
    sessionTimeoutMs: config.sessionTimeoutMs,
    // A third of the session timeout, as Kafka advises.
    heartbeatIntervalMs: Math.floor(config.sessionTimeoutMs / 3),
  };
}
