import { z } from 'zod';
import { makerEndpointUrl, makerProfiles, secretFile } from './maker-schema-parts.ts';

/** OPPO Push's endpoints in mainland China (docs/push-engine.md, "OPPO Push"). */
export const oppoDefaultEndpoints = {
  auth: 'https://api.push.oppomobile.com/server/v1/auth',
  send: 'https://api.push.oppomobile.com/server/v1/message/notification/unicast_batch',
} as const;

const oppoProfileSchema = z
  .object({
    appKey: z.string().regex(/^[0-9A-Za-z_-]{1,64}$/, 'the AppKey of the OPPO push platform').describe('the app\'s AppKey on the OPPO push platform'),
    masterSecretFile: secretFile.describe('file holding the MasterSecret (the server secret, not the AppSecret)'),
    channelId: z.string().min(1).max(64).optional().describe('notification channel_id when a push names none (Android 8+ shows nothing without an existing channel)'),
    category: z.string().regex(/^[A-Z_]{1,32}$/, 'an OPPO message category such as IM or ACCOUNT').optional().describe('category of every message (OPPO\'s message classification, once granted)'),
    notifyLevel: z.literal([1, 2, 16]).optional().describe('notify_level: 1 notification bar, 2 and lock screen, 16 and banner, vibration, sound; needs category'),
    clickActionType: z.literal([0, 1, 2, 4, 5]).default(0).describe('click_action_type: 0 open the app (default), 1 activity action, 2 web page, 4 activity class, 5 intent scheme URL'),
    clickActionActivity: z.string().min(1).max(500).optional().describe('click_action_activity, for click action types 1 and 4'),
    clickActionUrl: z.string().min(1).max(2000).optional().describe('click_action_url, for click action types 2 and 5'),
    defaultTitle: z.string().min(1).max(50).optional().describe('notification title when a push gives none; default the alert itself'),
    maxTokensPerRequest: z.number().int().min(1).max(1000).default(1000).describe('messages per unicast_batch request; OPPO takes up to 1000'),
  })
  .strict()
  .superRefine((profile, context) => {
    if (profile.notifyLevel !== undefined && profile.category === undefined) context.addIssue({ code: 'custom', path: ['notifyLevel'], message: 'notifyLevel needs category' });
    const needsActivity = profile.clickActionType === 1 || profile.clickActionType === 4;
    const needsUrl = profile.clickActionType === 2 || profile.clickActionType === 5;
    if (needsActivity && profile.clickActionActivity === undefined) context.addIssue({ code: 'custom', path: ['clickActionActivity'], message: `click action type ${profile.clickActionType} needs clickActionActivity` });
    if (needsUrl && profile.clickActionUrl === undefined) context.addIssue({ code: 'custom', path: ['clickActionUrl'], message: `click action type ${profile.clickActionType} needs clickActionUrl` });
  });

export const oppoAppSchema = z
  .object({
    endpoints: z
      .object({
        auth: makerEndpointUrl.default(oppoDefaultEndpoints.auth).describe('auth endpoint (/server/v1/auth)'),
        send: makerEndpointUrl.default(oppoDefaultEndpoints.send).describe('batched unicast endpoint (/server/v1/message/notification/unicast_batch)'),
      })
      .strict()
      .default(oppoDefaultEndpoints)
      .describe('OPPO Push endpoints, each on its own, for proxies and tests (overseas devices: api-intl.push.oppomobile.com)'),
    profiles: makerProfiles(oppoProfileSchema),
  })
  .strict();

export type OppoAppConfig = z.output<typeof oppoAppSchema>;
export type OppoProfileConfig = OppoAppConfig['profiles'][string];
