import { z } from 'zod';

/**
 * `push.outcomeStream`: the delivery events on the Kafka topic
 * `<prefix>push.outcomes` (docs/outcome-stream.md). Its partitions are
 * `bus.topics.pushOutcomes`, created with the other topics.
 */
export const outcomeStreamSchema = z
  .object({
    enabled: z
      .boolean()
      .default(false)
      .describe(
        'produce every delivery event on <prefix>push.outcomes (Kafka only; the embedded bus has no outside reader: use webhooks). Off by default: a topic nobody reads would cost the senders about as much CPU as the delivery log',
      ),
    maxPendingEvents: z
      .number()
      .int()
      .min(1000)
      .max(1_000_000)
      .default(50_000)
      .describe('events a sender process holds for the stream at most while Kafka is slow or away; beyond, slices wait up to maxWaitMs, then events are dropped and counted'),
    maxWaitMs: z.number().int().min(0).max(10_000).default(1000).describe('longest a slice waits for its events to be written (acks=all) before it goes on with them still buffered, and for room in a full buffer before what does not fit is dropped'),
    maxBatchEvents: z.number().int().min(1).max(10_000).default(2000).describe('events in one produce call at most'),
  })
  .strict();

export type OutcomeStreamConfig = z.output<typeof outcomeStreamSchema>;
