import { z } from 'zod';
import { makerEndpointUrl, makerProfiles, secretFile } from './maker-schema-parts.ts';

/**
 * Honor Push's endpoints (docs/push-engine.md, "Honor Push"): the token
 * endpoint the newest clients use (Honor's guide also shows the Keycloak path
 * `/auth/realms/developer/protocol/openid-connect/token` on the same host),
 * and `/api/v1/{appId}/sendMessage`.
 */
export const honorDefaultEndpoints = {
  auth: 'https://iam.developer.honor.com/auth/token',
  send: 'https://push-api.cloud.honor.com/api/v1/{appId}/sendMessage',
} as const;

const honorProfileSchema = z
  .object({
    appId: z.string().regex(/^[0-9A-Za-z_.-]{1,64}$/, 'the App ID of Honor\'s developer console').describe('the app\'s App ID in Honor\'s developer console; names the send URL\'s {appId}'),
    clientId: z.string().min(1).max(128).describe('OAuth 2.0 Client ID of the push service (Honor\'s console shows it apart from the App ID)'),
    clientSecretFile: secretFile.describe('file holding the OAuth 2.0 Client Secret'),
    intentHost: z
      .string()
      .regex(/^[A-Za-z0-9][A-Za-z0-9.-]{0,252}$/, 'a host name')
      .default('cn.leancloud.push')
      .describe('host of the click intent intent://<host>/notify_detail#Intent;scheme=lcpushscheme;… the hosted service\'s SDK listens on'),
    defaultTitle: z.string().min(1).max(256).optional().describe('notification title when a push gives none; default the alert itself'),
    importance: z
      .enum(['LOW', 'NORMAL'])
      .optional()
      .describe('android.notification.importance of every notification: LOW marketing, NORMAL service and communication (once Honor granted it)'),
    maxTokensPerRequest: z.number().int().min(1).max(1000).default(1000).describe('tokens per send request; up to 1000'),
  })
  .strict();

export const honorAppSchema = z
  .object({
    endpoints: z
      .object({
        auth: makerEndpointUrl.default(honorDefaultEndpoints.auth).describe('OAuth 2.0 token endpoint'),
        send: makerEndpointUrl.default(honorDefaultEndpoints.send).describe('sendMessage URL; {appId} is the profile\'s App ID'),
      })
      .strict()
      .default(honorDefaultEndpoints)
      .describe('Honor Push endpoints, each on its own, for proxies and tests'),
    profiles: makerProfiles(honorProfileSchema),
  })
  .strict();

export type HonorAppConfig = z.output<typeof honorAppSchema>;
