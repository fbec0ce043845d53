import { z } from 'zod';
import { makerEndpointUrl, makerProfiles, secretFile } from './maker-schema-parts.ts';

/** Huawei Push Kit's endpoints (docs/push-engine.md, "Huawei Push Kit"). */
export const hmsDefaultEndpoints = {
  auth: 'https://oauth-login.cloud.huawei.com/oauth2/v3/token',
  send: 'https://push-api.cloud.huawei.com/v1/{appId}/messages:send',
} as const;

const hmsProfileSchema = z
  .object({
    appId: z.string().regex(/^[0-9A-Za-z_.-]{1,64}$/, 'the App ID of AppGallery Connect').describe('the app\'s App ID in AppGallery Connect; names the send URL\'s {appId}'),
    clientId: z.string().min(1).max(128).optional().describe('OAuth 2.0 client id; default the App ID'),
    clientSecretFile: secretFile.describe('file holding the OAuth 2.0 client secret (the App Secret)'),
    intentHost: z
      .string()
      .regex(/^[A-Za-z0-9][A-Za-z0-9.-]{0,252}$/, 'a host name')
      .default('cn.leancloud.push')
      .describe('host of the click intent intent://<host>/notify_detail#Intent;scheme=lcpushscheme;… the hosted service\'s SDK listens on'),
    defaultTitle: z.string().min(1).max(256).optional().describe('notification title when a push gives none; default the alert itself'),
    category: z.string().regex(/^[A-Z_]{1,32}$/, 'an HMS message category such as IM or WORK').optional().describe('android.category of every message (self-classification, once Huawei granted it)'),
    maxTokensPerRequest: z.number().int().min(1).max(1000).default(1000).describe('tokens per send request; HMS takes up to 1000'),
  })
  .strict();

export const hmsAppSchema = z
  .object({
    endpoints: z
      .object({
        auth: makerEndpointUrl.default(hmsDefaultEndpoints.auth).describe('OAuth 2.0 token endpoint'),
        send: makerEndpointUrl.default(hmsDefaultEndpoints.send).describe('messages:send URL; {appId} is the profile\'s App ID'),
      })
      .strict()
      .default(hmsDefaultEndpoints)
      .describe('Huawei Push Kit endpoints, each on its own, for proxies and tests'),
    profiles: makerProfiles(hmsProfileSchema),
  })
  .strict();

export type HmsAppConfig = z.output<typeof hmsAppSchema>;
export type HmsProfileConfig = HmsAppConfig['profiles'][string];
