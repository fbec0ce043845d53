import { z } from 'zod';

/**
 * Webhooks (docs/webhooks.md): each app's endpoints (`apps[].webhooks`) and
 * the settings every endpoint shares (`push.webhooks`).
 */

/** The events an endpoint can take; `delivery.succeeded` only when it asks for it. */
export const webhookEventTypes = ['push.done', 'delivery.failed', 'installation.removed', 'delivery.succeeded'] as const;

export type WebhookEventType = (typeof webhookEventTypes)[number];

/** What an endpoint takes when its config names no events: everything but one event per delivered device. */
export const defaultWebhookEvents: readonly WebhookEventType[] = ['push.done', 'delivery.failed', 'installation.removed'];

/** The shortest signing secret taken: HMAC-SHA256 wants a key of 32 random bytes; 16 characters is the floor. */
export const minWebhookSecretLength = 16;

/** Whether `hostname` (as `URL` gives it) is this machine: 127.0.0.0/8, ::1 or localhost. */
export function isLoopbackHost(hostname: string): boolean {
  return hostname === 'localhost' || hostname === '[::1]' || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(hostname);
}

/** `https://…`, or `http://` to this machine only (development, a sidecar); no credentials in the URL, no fragment. */
const endpointUrl = z.url().superRefine((text, ctx) => {
  const url = new URL(text);
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && isLoopbackHost(url.hostname))) {
    ctx.addIssue({ code: 'custom', message: 'must be https:// (http:// only to 127.0.0.1, ::1 or localhost)' });
  }
  if (url.username !== '' || url.password !== '') ctx.addIssue({ code: 'custom', message: 'must not carry credentials: requests are signed with the secret' });
  if (url.hash !== '') ctx.addIssue({ code: 'custom', message: 'must not have a #fragment' });
});

export const webhookEndpointSchema = z
  .object({
    name: z
      .string()
      .regex(/^[a-z0-9][a-z0-9_-]{0,31}$/, 'lower-case letters, digits, _ and -, at most 32 characters')
      .default('default')
      .describe('names the endpoint in metrics (endpoint label) and logs; unique within the app'),
    url: endpointUrl.describe('where batches of events are POSTed: https://, or http:// to the loopback address'),
    secret: z.string().min(minWebhookSecretLength, `at least ${minWebhookSecretLength} characters`).optional().describe('the signing secret (HMAC-SHA256); prefer secretFile'),
    secretFile: z.string().min(1).optional().describe('file holding the signing secret; a trailing newline is ignored'),
    events: z
      .array(z.enum(webhookEventTypes))
      .min(1)
      .default([...defaultWebhookEvents])
      .describe('events sent to this endpoint: push.done, delivery.failed, installation.removed, delivery.succeeded (default all but delivery.succeeded)'),
  })
  .strict()
  .superRefine((endpoint, ctx) => {
    if ((endpoint.secret === undefined) === (endpoint.secretFile === undefined)) ctx.addIssue({ code: 'custom', message: 'give secret or secretFile, one of them', path: ['secretFile'] });
  });

/**
 * An app's endpoints. The single-app variables (`HERALD_WEBHOOK_*`) write
 * the first one as `{0: {…}}`, read here as a list.
 */
export const appWebhooksSchema = z.preprocess(
  (raw) => (typeof raw === 'object' && raw !== null && !Array.isArray(raw) && Object.keys(raw).every((key) => /^\d+$/.test(key)) ? Object.values(raw) : raw),
  z
    .array(webhookEndpointSchema)
    .max(16)
    .superRefine((endpoints, ctx) => {
      const seen = new Set<string>();
      endpoints.forEach((endpoint, index) => {
        if (seen.has(endpoint.name)) ctx.addIssue({ code: 'custom', message: `another endpoint of the app is named ${endpoint.name}: give each a name`, path: [index, 'name'] });
        seen.add(endpoint.name);
      });
    }),
);

/** `push.webhooks`: queues, batches, deadlines and retries, the same for every endpoint. */
export const webhookSettingsSchema = z
  .object({
    maxQueuedEvents: z
      .number()
      .int()
      .min(100)
      .max(1_000_000)
      .default(10_000)
      .describe('events waiting for one endpoint in one process at most; beyond, new events are dropped and counted (herald_webhook_events_dropped_total)'),
    maxBatchEvents: z.number().int().min(1).max(1000).default(200).describe('events in one POST at most'),
    batchDelayMs: z.number().int().min(0).max(60_000).default(250).describe('how long the first event of a batch waits for others before the batch goes'),
    requestTimeoutMs: z.number().int().min(100).max(120_000).default(10_000).describe('longest wait for an endpoint\'s whole answer; then the batch is retried'),
    retryForMs: z
      .number()
      .int()
      .min(1000)
      .max(7 * 24 * 3_600_000)
      .default(24 * 3_600_000)
      .describe('how long a batch is retried from its first attempt; then it is dropped and counted'),
    retryBaseDelayMs: z.number().int().min(1).max(600_000).default(1000).describe('backoff before the first retry, doubled for each further one, with full jitter'),
    retryMaxDelayMs: z.number().int().min(1).max(3_600_000).default(300_000).describe('cap of the backoff and of an endpoint\'s Retry-After'),
    shutdownDrainMs: z.number().int().min(0).max(120_000).default(5000).describe('how long a closing process keeps sending what is queued; the rest is dropped and counted'),
  })
  .strict()
  .refine((settings) => settings.retryMaxDelayMs >= settings.retryBaseDelayMs, { message: 'must not be below retryBaseDelayMs', path: ['retryMaxDelayMs'] });

export type WebhookEndpointConfig = z.output<typeof webhookEndpointSchema>;
export type WebhookSettings = z.output<typeof webhookSettingsSchema>;
