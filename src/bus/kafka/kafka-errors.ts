import { ServiceUnavailableError } from '../../core/errors.ts';
import { UnknownTopicError } from '../../core/ports/bus.ts';

/** The Kafka protocol error name (`REBALANCE_IN_PROGRESS`, …) of `error` or of what caused it. */
export function kafkaErrorType(error: unknown): string | undefined {
  for (let current = error, depth = 0; current instanceof Error && depth < 10; current = current.cause, depth += 1) {
    if ('type' in current && typeof current.type === 'string') return current.type;
    // kafkajs aggregates (createTopics) keep their parts in `errors`.
    if ('errors' in current && Array.isArray(current.errors)) {
      const inner = current.errors.map((part) => kafkaErrorType(part)).find((type) => type !== undefined);
      if (inner !== undefined) return inner;
    }
  }
  return undefined;
}

/**
 * Heartbeat and commit answers meaning this member no longer owns its
 * partitions: the group is rebalancing, or the member was dropped from it.
 */
export function isRevocation(error: unknown): boolean {
  const type = kafkaErrorType(error);
  return (
    type === 'REBALANCE_IN_PROGRESS' ||
    type === 'ILLEGAL_GENERATION' ||
    type === 'UNKNOWN_MEMBER_ID' ||
    type === 'NOT_COORDINATOR_FOR_GROUP' ||
    type === 'NOT_COORDINATOR'
  );
}

/** What a kafkajs failure means to a caller of the bus. */
export function toBusError(error: unknown, topic?: string): Error {
  if (error instanceof UnknownTopicError || error instanceof ServiceUnavailableError) return error;
  if (topic !== undefined && kafkaErrorType(error) === 'UNKNOWN_TOPIC_OR_PARTITION') return new UnknownTopicError(topic, { cause: error });
  return new ServiceUnavailableError('Kafka', error);
}
