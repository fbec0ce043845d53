import type { Logger } from '../core/logger.ts';
import type { DeliveryEvents } from '../push/outcomes/delivery-events.ts';
import { OutcomeStream } from '../push/outcomes/stream/outcome-stream.ts';
import { WebhookDeliveryEvents } from '../push/outcomes/webhooks/webhook-delivery-events.ts';
import type { Runtime } from './create-runtime.ts';

/** How long a closing sender keeps producing the stream's buffer; the rest is dropped and counted. */
const streamDrainMs = 5000;

/** The sinks of a sender's delivery events besides the delivery log, and how to stop them. */
export interface OutcomeSinks {
  readonly sinks: readonly DeliveryEvents[];
  /** Produces what the stream still holds (at most 5 s); call after the sender's last slice, before the bus closes. */
  close(): Promise<void>;
}

/**
 * The outcome stream (`push.outcomeStream.enabled`, off by default, and only
 * on Kafka; docs/delivery-log.md) and the webhooks' delivery events
 * (docs/webhooks.md), each only when it has somewhere to go.
 */
export function outcomeSinksOf(runtime: Pick<Runtime, 'config' | 'bus' | 'topics' | 'metrics' | 'clock' | 'webhooks'>, logger: Logger): OutcomeSinks {
  const { config } = runtime;
  const sinks: DeliveryEvents[] = [];
  const kafka = config.bus.kind === 'kafka';
  const wanted = config.push.outcomeStream.enabled;
  if (wanted && !kafka) logger.warn('push.outcomeStream.enabled is set but the bus is not Kafka: the embedded bus has no outside reader, so no stream is produced (use webhooks)');
  const stream =
    wanted && kafka
      ? new OutcomeStream({
          bus: runtime.bus,
          topic: runtime.topics.outcomes,
          settings: config.push.outcomeStream,
          metrics: runtime.metrics.outcomeStream,
          logger: logger.child({ component: 'outcome-stream' }),
          clock: runtime.clock,
        })
      : null;
  if (stream !== null) sinks.push(stream);
  const { webhooks } = runtime.webhooks;
  if (webhooks !== null) sinks.push(new WebhookDeliveryEvents(webhooks));
  return { sinks, close: () => stream?.close(streamDrainMs) ?? Promise.resolve() };
}
