import { z } from 'zod';

/**
 * What the delivery log keeps of delivered devices (docs/delivery-log.md,
 * "Successes: all, sampled or off"): `all` an entry for each, `sampled` a
 * fixed fraction of them (`sampleRate`), `off` none. Devices that were not
 * delivered are always kept.
 */
export const successModes = ['all', 'sampled', 'off'] as const;

export type SuccessMode = (typeof successModes)[number];

const sampleRate = z.number().gt(0).max(1);

/** `push.deliveryLog`: the delivery log of every app, unless an app's settings say otherwise. */
export const deliveryLogSchema = z
  .object({
    enabled: z
      .boolean()
      .default(true)
      .describe('keep the delivery log at all; off, no entry is written, failures included, and explain shows the rules alone'),
    retentionDays: z.number().int().min(1).max(90).optional().describe('days entries are kept; default push.retentionDays (7)'),
    successes: z.enum(successModes).default('all').describe('entries of delivered devices: all, sampled (sampleRate of them) or off; failures are always kept'),
    sampleRate: sampleRate.default(0.01).describe('with successes: sampled, the fraction of delivered devices kept, from 0 (excluded) to 1'),
  })
  .strict();

export type DeliveryLogConfig = z.output<typeof deliveryLogSchema>;

/** `apps[].settings.deliveryLog`: an app's own choice of the above; what it leaves out is `push.deliveryLog`'s. */
export const appDeliveryLogSchema = z
  .object({
    retentionDays: z.number().int().min(1).max(90).optional().describe("days this app's entries are kept"),
    successes: z.enum(successModes).optional().describe('entries of delivered devices: all, sampled or off'),
    sampleRate: sampleRate.optional().describe('with successes: sampled, the fraction of delivered devices kept'),
  })
  .strict();

export type AppDeliveryLogConfig = z.output<typeof appDeliveryLogSchema>;
