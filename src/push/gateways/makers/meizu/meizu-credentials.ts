import type { MeizuAppConfig } from '../../../../config/makers/meizu-schema.ts';
import type { CredentialFiles } from '../../credential-files.ts';

/** One Meizu profile as its client needs it, its secret read from its file. */
export interface MeizuProfile {
  name: string;
  appId: string;
  appSecret: string;
  defaultTitle: string | undefined;
  noticeMsgType: 0 | 1;
  maxTokens: number;
  sendUrl: URL;
}

/** Reads an app's `push.meizu` block: each profile with its App Secret. Throws `ConfigError` naming the key and file. */
export function loadMeizuProfiles(config: MeizuAppConfig, files: CredentialFiles, at: string): ReadonlyMap<string, MeizuProfile> {
  const profiles = new Map<string, MeizuProfile>();
  for (const [name, profile] of Object.entries(config.profiles)) {
    profiles.set(name, {
      name,
      appId: profile.appId,
      appSecret: files.secret(`${at}.profiles.${name}.appSecretFile`, profile.appSecretFile),
      defaultTitle: profile.defaultTitle,
      noticeMsgType: profile.noticeMsgType,
      maxTokens: profile.maxPushIdsPerRequest,
      sendUrl: new URL(config.endpoints.send),
    });
  }
  return profiles;
}
