import { z } from 'zod';
import { makerEndpointUrl, makerProfiles, secretFile } from './maker-schema-parts.ts';

/** vivo Push's endpoints (docs/push-engine.md, "vivo Push"). */
export const vivoDefaultEndpoints = {
  auth: 'https://api-push.vivo.com.cn/message/auth',
  send: 'https://api-push.vivo.com.cn/message/send',
  saveList: 'https://api-push.vivo.com.cn/message/saveListPayload',
  sendList: 'https://api-push.vivo.com.cn/message/pushToList',
} as const;

const vivoProfileSchema = z
  .object({
    appId: z.string().regex(/^[1-9][0-9]{0,14}$/, 'the numeric App ID of the vivo developer platform').describe('the app\'s App ID on the vivo developer platform'),
    appKey: z.string().regex(/^[0-9A-Za-z_-]{1,128}$/, 'the AppKey of the vivo developer platform').describe('the app\'s AppKey'),
    appSecretFile: secretFile.describe('file holding the AppSecret'),
    classification: z.literal([0, 1]).default(0).describe('classification: 0 operational (vivo\'s default: capped per day and sent 07:00-23:00 only), 1 system (IM, orders and the like, once vivo granted it)'),
    category: z.string().regex(/^[A-Z_]{1,32}$/, 'a vivo message category such as IM or ORDER').optional().describe('category (vivo\'s second-level classification) of every message'),
    notifyType: z.literal([1, 2, 3, 4]).default(4).describe('notifyType: 1 silent, 2 sound, 3 vibration, 4 both'),
    skipType: z.literal([1, 2, 4]).default(1).describe('skipType: 1 open the app (default), 2 a web page, 4 a page of the app by intent URI'),
    skipContent: z.string().min(1).max(1024).optional().describe('skipContent: the URL (skipType 2) or intent URI (skipType 4), e.g. intent://cn.leancloud.push/detail#Intent;scheme=mixpushscheme;launchFlags=0x10000000;end'),
    pushMode: z.literal([0, 1]).default(0).describe('pushMode: 0 formal, 1 test (only to the test devices registered with vivo)'),
    defaultTitle: z.string().min(1).max(40).optional().describe('notification title when a push gives none; default the alert itself'),
    maxTokensPerRequest: z.number().int().min(1).max(1000).default(1000).describe('regIds per pushToList request; vivo takes 2 to 1000 (one goes through /message/send)'),
  })
  .strict()
  .superRefine((profile, context) => {
    if (profile.skipType !== 1 && profile.skipContent === undefined) context.addIssue({ code: 'custom', path: ['skipContent'], message: `skipType ${profile.skipType} needs skipContent` });
  });

export const vivoAppSchema = z
  .object({
    endpoints: z
      .object({
        auth: makerEndpointUrl.default(vivoDefaultEndpoints.auth).describe('auth endpoint (/message/auth)'),
        send: makerEndpointUrl.default(vivoDefaultEndpoints.send).describe('single send (/message/send), for a batch of one'),
        saveList: makerEndpointUrl.default(vivoDefaultEndpoints.saveList).describe('saves a push\'s message for list sends (/message/saveListPayload)'),
        sendList: makerEndpointUrl.default(vivoDefaultEndpoints.sendList).describe('list send of 2 to 1000 regIds (/message/pushToList)'),
      })
      .strict()
      .default(vivoDefaultEndpoints)
      .describe('vivo Push endpoints, each on its own, for proxies and tests'),
    profiles: makerProfiles(vivoProfileSchema),
  })
  .strict();

export type VivoAppConfig = z.output<typeof vivoAppSchema>;
export type VivoProfileConfig = VivoAppConfig['profiles'][string];
