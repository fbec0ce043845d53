import { z } from 'zod';
import { hmsAppSchema } from './makers/hms-schema.ts';
import { oppoAppSchema } from './makers/oppo-schema.ts';
import { vivoAppSchema } from './makers/vivo-schema.ts';
import { honorAppSchema } from './makers/honor-schema.ts';
import { meizuAppSchema } from './makers/meizu-schema.ts';
import { xiaomiAppSchema } from './makers/xiaomi-schema.ts';

/**
 * Push credentials per app (`apps[].push`) and the settings every gateway
 * client shares (`push.gateways`). Secrets stay in files: the config names
 * them and `loadPushCredentials` reads them at start-up.
 */

const filePath = z.string().min(1);

/** `https://host[:port]`, nothing after it. */
const httpsOrigin = z.url().refine((url) => {
  const parsed = new URL(url);
  return parsed.protocol === 'https:' && (parsed.pathname === '/' || parsed.pathname === '') && parsed.search === '' && parsed.hash === '';
}, 'expected https://host[:port] with no path');

/** Apple's key and team ids: ten letters and digits. */
const appleId = z.string().regex(/^[A-Z0-9]{10}$/, 'ten upper-case letters and digits');

const pkcs12Certificate = z
  .object({
    pfxFile: filePath.describe('PKCS#12 (.p12/.pfx) file with the certificate and its key'),
    passphraseFile: filePath.optional().describe('file holding the passphrase of pfxFile; a trailing newline is ignored'),
  })
  .strict();

const pemCertificate = z
  .object({
    certFile: filePath.describe('PEM certificate file'),
    keyFile: filePath.describe('PEM private key file'),
    passphraseFile: filePath.optional().describe('file holding the passphrase of an encrypted keyFile'),
  })
  .strict();

const certificateSchema = z.union([pkcs12Certificate, pemCertificate]).describe('an APNs TLS client certificate: pfxFile, or certFile with keyFile');

const environmentCertificates = z
  .object({
    production: certificateSchema.optional().describe('certificate for the production endpoint'),
    development: certificateSchema.optional().describe('certificate for the sandbox endpoint'),
  })
  .strict();

export const apnsAppSchema = z
  .object({
    topic: z.string().min(1).optional().describe('default apns-topic (the bundle id) when neither the push nor the installation names one'),
    token: z
      .object({
        keyFile: filePath.describe('the .p8 signing key from the Apple developer account'),
        keyId: appleId.describe('id of the .p8 key'),
        teamId: appleId.describe('Apple developer team id'),
      })
      .strict()
      .optional()
      .describe('token (JWT) authentication; serves both environments'),
    certificates: environmentCertificates
      .extend({
        profiles: z
          .record(z.string().min(1).max(64), environmentCertificates)
          .optional()
          .describe('named certificates chosen by an installation\'s deviceProfile or a push\'s device_profile'),
      })
      .strict()
      .optional()
      .describe('certificate authentication'),
    endpoints: z
      .object({
        production: httpsOrigin.optional().describe('default https://api.push.apple.com'),
        development: httpsOrigin.optional().describe('default https://api.sandbox.push.apple.com'),
      })
      .strict()
      .optional()
      .describe('APNs endpoints, for proxies and tests'),
  })
  .strict()
  .refine((apns) => apns.token !== undefined || apns.certificates !== undefined, 'give token or certificates');

export const fcmAppSchema = z
  .object({
    serviceAccountFile: filePath.describe('Google service-account JSON file of the Firebase project'),
    endpoint: httpsOrigin.optional().describe('default https://fcm.googleapis.com'),
  })
  .strict();

export const appPushSchema = z
  .object({
    apns: apnsAppSchema.optional().describe('Apple Push Notification service credentials'),
    fcm: fcmAppSchema.optional().describe('Firebase Cloud Messaging credentials'),
    // The phone makers' push services, one block each (docs/push-engine.md, "Phone-maker gateways").
    hms: hmsAppSchema.optional().describe('Huawei Push Kit: endpoints and profiles'),
    oppo: oppoAppSchema.optional().describe('OPPO Push: endpoints and profiles'),
    vivo: vivoAppSchema.optional().describe('vivo Push: endpoints (auth, send, saveList, sendList) and profiles'),
    honor: honorAppSchema.optional().describe('Honor Push: endpoints and profiles'),
    meizu: meizuAppSchema.optional().describe('Meizu Flyme Push: endpoint and profiles'),
    xiaomi: xiaomiAppSchema.optional().describe('Xiaomi Mi Push: endpoints (China and global) and profiles'),
  })
  .strict();

export const retryPolicySchema = z
  .object({
    maxAttempts: z.number().int().min(1).max(20).default(5).describe('sends of one delivery in all, the first included'),
    baseDelayMs: z.number().int().min(1).max(60_000).default(250).describe('backoff before the first resend, doubled for each further one'),
    maxDelayMs: z.number().int().min(1).max(600_000).default(10_000).describe('cap of the exponential backoff'),
    maxRetryAfterMs: z.number().int().min(0).max(3_600_000).default(60_000).describe('cap of a gateway\'s Retry-After'),
  })
  .strict()
  .refine((policy) => policy.maxDelayMs >= policy.baseDelayMs, { message: 'must not be below baseDelayMs', path: ['maxDelayMs'] });

/**
 * A gateway serves a connection only so many streams at once (APNs 1000, FCM
 * 100; more are refused), so a sender needs enough sessions to carry its
 * delivery window (`push.deliveryWindow.max`, 2000 by default): APNs 2 × 1000,
 * FCM 20 × 100. Sessions open only when the open ones are full, so a larger
 * cap costs nothing at low volume. With too few, deliveries wait for a stream
 * in the process: FCM 60 ms away with 2 sessions carries 200 ÷ 60 ms ≈ 3,300
 * deliveries a second, whatever the window.
 */
const sessionsPerOriginSchema = z
  .object(
    {
      apns: z.number().int().min(1).max(64).default(2).describe('APNs allows 1000 streams per connection'),
      fcm: z.number().int().min(1).max(64).default(20).describe('FCM allows 100 streams per connection'),
    },
    { error: 'sessions per gateway, as { apns, fcm }' },
  )
  .strict();

export const pushGatewaysSchema = z
  .object({
    caFile: filePath
      .optional()
      .describe('PEM CAs trusted for the gateways and the FCM token endpoint instead of the system roots (tests, private proxies); NODE_EXTRA_CA_CERTS adds to the roots instead'),
    transport: z
      .enum(['herald', 'http2-wrapper'])
      .default('herald')
      .describe(
        'how deliveries reach the gateways: herald, Herald\'s own HTTP/2 connections (about a fifth of the CPU per request), or http2-wrapper, node:http2 sessions managed by http2-wrapper, kept as a fallback',
      ),
    sessionsPerOrigin: sessionsPerOriginSchema.default({ apns: 2, fcm: 20 }).describe(
      'most HTTP/2 sessions per gateway endpoint and credential, for APNs and for FCM; one more opens only while the open ones are at the server\'s stream limit',
    ),
    makerConnections: z
      .number()
      .int()
      .min(1)
      .max(64)
      .default(8)
      .describe('most keep-alive HTTP/1.1 connections per phone-maker endpoint and profile (a request carries up to 1000 devices)'),
    requestTimeoutMs: z.number().int().min(100).max(300_000).default(10_000).describe('longest wait for a gateway answer; then the delivery is retried'),
    pingIntervalMs: z.number().int().min(1000).max(3_600_000).default(60_000).describe('HTTP/2 PING interval; a session that misses an answer is replaced'),
    tokenRefreshMinutes: z.number().int().min(20).max(60).default(50).describe('age at which the APNs provider token is signed again (APNs: 20 to 60 minutes)'),
    retry: retryPolicySchema.default({ maxAttempts: 5, baseDelayMs: 250, maxDelayMs: 10_000, maxRetryAfterMs: 60_000 }).describe('resending of deliveries answered with a retryable error'),
  })
  .strict();

export type ApnsAppConfig = z.output<typeof apnsAppSchema>;
export type ApnsCertificateConfig = z.output<typeof certificateSchema>;
export type FcmAppConfig = z.output<typeof fcmAppSchema>;
export type AppPushConfig = z.output<typeof appPushSchema>;
export type RetryPolicyConfig = z.output<typeof retryPolicySchema>;
export type PushGatewaysConfig = z.output<typeof pushGatewaysSchema>;
export type RawPushGatewaysConfig = z.input<typeof pushGatewaysSchema>;
