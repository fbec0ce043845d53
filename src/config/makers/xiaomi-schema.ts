import { z } from 'zod';
import { makerEndpointUrl, makerProfiles, secretFile } from './maker-schema-parts.ts';

/** Xiaomi Mi Push's send URLs: mainland China, and the global service for `mi-intl` devices (docs/push-engine.md, "Xiaomi Mi Push"). */
export const xiaomiDefaultEndpoints = {
  send: 'https://api.xmpush.xiaomi.com/v3/message/regid',
  sendGlobal: 'https://api.xmpush.global.xiaomi.com/v3/message/regid',
} as const;

const xiaomiProfileSchema = z
  .object({
    appSecretFile: secretFile.describe('file holding the AppSecret of the app in Xiaomi\'s developer console (sent as Authorization: key=<AppSecret>)'),
    packageName: z
      .string()
      .regex(/^[A-Za-z][A-Za-z0-9_]*(?:\.[A-Za-z][A-Za-z0-9_]*)+$/, 'an Android package name such as com.example.app')
      .max(255)
      .describe('the Android package (restricted_package_name) of the app the regIds belong to'),
    channelId: z
      .string()
      .min(1)
      .max(200)
      .optional()
      .describe('extra.channel_id of notifications when a push names no channel: the notification category Xiaomi assigned the app (required once the app opted into Xiaomi\'s message classification)'),
    defaultTitle: z.string().min(1).max(256).optional().describe('notification title when a push gives none; default the alert itself'),
    notifyType: z.number().int().min(-1).max(7).default(-1).describe('notify_type of notifications: -1 all, or the sum of 1 sound, 2 vibration, 4 lights'),
    maxTokensPerRequest: z.number().int().min(1).max(1000).default(1000).describe('regIds per send request; Xiaomi takes up to 1000'),
  })
  .strict();

export const xiaomiAppSchema = z
  .object({
    endpoints: z
      .object({
        send: makerEndpointUrl.default(xiaomiDefaultEndpoints.send).describe('/v3/message/regid of the mainland China service (vendor mi)'),
        sendGlobal: makerEndpointUrl.default(xiaomiDefaultEndpoints.sendGlobal).describe('/v3/message/regid of the global service (vendor mi-intl)'),
      })
      .strict()
      .default(xiaomiDefaultEndpoints)
      .describe('Xiaomi Mi Push send URLs, each on its own, for proxies, regional hosts and tests'),
    profiles: makerProfiles(xiaomiProfileSchema),
  })
  .strict();

export type XiaomiAppConfig = z.output<typeof xiaomiAppSchema>;
export type XiaomiProfileConfig = XiaomiAppConfig['profiles'][string];
