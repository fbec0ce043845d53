import { z } from 'zod';
import { makerEndpointUrl, makerProfiles, secretFile } from './maker-schema-parts.ts';

/**
 * Meizu Flyme Push's endpoint (docs/push-engine.md, "Meizu Flyme Push"): the
 * notification send by pushId, HTTPS only since 2025. Meizu has no auth
 * endpoint: every request is signed with the App Secret.
 */
export const meizuDefaultEndpoints = {
  send: 'https://server-api-push.meizu.com/garcia/api/server/push/varnished/pushByPushId',
} as const;

const meizuProfileSchema = z
  .object({
    appId: z.string().regex(/^[0-9]{1,20}$/, 'the numeric App ID of Meizu\'s console').describe('the app\'s App ID in Meizu\'s push console (sent as appId)'),
    appSecretFile: secretFile.describe('file holding the App Secret, which signs every request'),
    defaultTitle: z.string().min(1).max(32).optional().describe('notification title when a push gives none; default the alert itself (cut to 32 characters)'),
    noticeMsgType: z
      .union([z.literal(0), z.literal(1)])
      .default(0)
      .describe('noticeBarInfo.noticeMsgType: 0 public (公信, capped per device and day), 1 private (私信, once Meizu approved it)'),
    maxPushIdsPerRequest: z.number().int().min(1).max(100).default(100).describe('pushIds per send request; Meizu takes up to 100'),
  })
  .strict();

export const meizuAppSchema = z
  .object({
    endpoints: z
      .object({
        send: makerEndpointUrl.default(meizuDefaultEndpoints.send).describe('varnished/pushByPushId URL'),
      })
      .strict()
      .default(meizuDefaultEndpoints)
      .describe('Meizu Flyme Push endpoint, for proxies and tests'),
    profiles: makerProfiles(meizuProfileSchema),
  })
  .strict();

export type MeizuAppConfig = z.output<typeof meizuAppSchema>;
