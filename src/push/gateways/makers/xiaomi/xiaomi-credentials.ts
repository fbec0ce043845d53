import type { XiaomiAppConfig } from '../../../../config/makers/xiaomi-schema.ts';
import type { CredentialFiles } from '../../credential-files.ts';

/** One Xiaomi profile as its client needs it, its AppSecret read from its file. */
export interface XiaomiProfile {
  name: string;
  appSecret: string;
  packageName: string;
  channelId: string | undefined;
  defaultTitle: string | undefined;
  notifyType: number;
  maxTokens: number;
  /** `/v3/message/regid` of the mainland China service (vendor `mi`). */
  sendUrl: URL;
  /** `/v3/message/regid` of the global service (vendor `mi-intl`). */
  globalSendUrl: URL;
}

/** Reads an app's `push.xiaomi` block: each profile with its AppSecret. Throws `ConfigError` naming the key and file. */
export function loadXiaomiProfiles(config: XiaomiAppConfig, files: CredentialFiles, at: string): ReadonlyMap<string, XiaomiProfile> {
  const profiles = new Map<string, XiaomiProfile>();
  for (const [name, profile] of Object.entries(config.profiles)) {
    profiles.set(name, {
      name,
      appSecret: files.secret(`${at}.profiles.${name}.appSecretFile`, profile.appSecretFile),
      packageName: profile.packageName,
      channelId: profile.channelId,
      defaultTitle: profile.defaultTitle,
      notifyType: profile.notifyType,
      maxTokens: profile.maxTokensPerRequest,
      sendUrl: new URL(config.endpoints.send),
      globalSendUrl: new URL(config.endpoints.sendGlobal),
    });
  }
  return profiles;
}
