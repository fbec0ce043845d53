import { z } from 'zod';
import { deliveryLogSchema } from './delivery-log-schema.ts';
import { outcomeStreamSchema } from './outcome-stream-schema.ts';
import { pushGatewaysSchema } from './push-gateways-schema.ts';
import { webhookSettingsSchema } from './webhooks-schema.ts';

/**
 * Deliveries in flight per sender process and gateway (APNs and FCM have a
 * window each). At least 300 by default: enough to keep a gateway on the same
 * network busy (against a local one the rate stopped rising above ~200, and
 * more only costs memory and GC time). At most 2000: what two sessions carry
 * at APNs's 1000 streams each (and twenty at FCM's 100:
 * `push.gateways.sessionsPerOrigin`), so requests do not queue inside the
 * HTTP/2 client; 20,000 a second against a gateway 100 ms away.
 */
const deliveryWindowSchema = z
  .object({
    min: z.number().int().min(1).max(100_000).default(300).describe('deliveries a sender process keeps in flight to each gateway at least, while it has them'),
    max: z.number().int().min(1).max(100_000).default(2000).describe('deliveries a sender process keeps in flight to each gateway at most; reached only while the gateway answers slower than its CPU can send (rate = in flight ÷ latency)'),
  })
  .strict()
  .refine((window) => window.min <= window.max, { message: 'deliveryWindow.min must not be above deliveryWindow.max' });

/**
 * How the push engine works through an audience (`push` in the config file):
 * shards of installations, slices of a shard, how long data is kept, and the
 * gateway clients' settings.
 */
export const pushEngineSchema = z
  .object({
    installationShards: z
      .number()
      .int()
      .min(1)
      .max(4096)
      .default(64)
      .describe('shards installations are spread over; one fan-out task per shard. Fixed when the store is created'),
    sliceSize: z.number().int().min(10).max(10_000).default(1000).describe('installations a sender works through in one bus message'),
    senderConcurrency: z.number().int().min(1).max(256).default(8).describe('partitions of push.tasks one sender process works on at once'),
    deliveryWindow: deliveryWindowSchema
      .default(deliveryWindowSchema.parse({}))
      .describe('deliveries in flight per sender process, a window per gateway: each grows from min towards max while its gateway is far and the CPU idle, and shrinks when answers slow down'),
    retentionDays: z.number().int().min(1).max(90).default(7).describe('days push records are kept'),
    outcomeStream: outcomeStreamSchema.default(outcomeStreamSchema.parse({})).describe('delivery events on the Kafka topic <prefix>push.outcomes (docs/outcome-stream.md)'),
    webhooks: webhookSettingsSchema.default(webhookSettingsSchema.parse({})).describe("queues, batches and retries of the apps' webhooks (docs/webhooks.md)"),
    idleInstallationDays: z.number().int().min(1).max(3650).default(90).describe('installations not saved for this many days are not targeted and are removed'),
    schedulerIntervalMs: z.number().int().min(100).max(60_000).default(1000).describe('how often the scheduler looks for due pushes'),
    sweepIntervalMs: z.number().int().min(1000).max(7 * 24 * 3_600_000).default(3_600_000).describe('how often idle installations and old push records are removed'),
    gateways: pushGatewaysSchema.default(pushGatewaysSchema.parse({})),
    deliveryLog: deliveryLogSchema
      .default(deliveryLogSchema.parse({}))
      .describe("each targeted device's final outcome, kept per app and queried by push and by installation (docs/delivery-log.md)"),
  })
  .strict();

export type PushEngineConfig = z.output<typeof pushEngineSchema>;
