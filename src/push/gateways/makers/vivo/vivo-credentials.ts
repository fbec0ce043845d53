import type { VivoAppConfig } from '../../../../config/makers/vivo-schema.ts';
import type { CredentialFiles } from '../../credential-files.ts';
import type { VivoMessageSettings } from './vivo-message.ts';

/** One vivo profile as its client needs it, its AppSecret read from its file. */
export interface VivoProfile extends VivoMessageSettings {
  name: string;
  appKey: string;
  appSecret: string;
  maxTokens: number;
  authUrl: URL;
  sendUrl: URL;
  saveListUrl: URL;
  sendListUrl: URL;
}

/** Reads an app's `push.vivo` block: each profile with its AppSecret. Throws `ConfigError` naming the key and file. */
export function loadVivoProfiles(config: VivoAppConfig, files: CredentialFiles, at: string): ReadonlyMap<string, VivoProfile> {
  const profiles = new Map<string, VivoProfile>();
  const { endpoints } = config;
  for (const [name, profile] of Object.entries(config.profiles)) {
    profiles.set(name, {
      name,
      appId: profile.appId,
      appKey: profile.appKey,
      appSecret: files.secret(`${at}.profiles.${name}.appSecretFile`, profile.appSecretFile),
      classification: profile.classification,
      category: profile.category,
      notifyType: profile.notifyType,
      skipType: profile.skipType,
      skipContent: profile.skipContent,
      pushMode: profile.pushMode,
      defaultTitle: profile.defaultTitle,
      maxTokens: profile.maxTokensPerRequest,
      authUrl: new URL(endpoints.auth),
      sendUrl: new URL(endpoints.send),
      saveListUrl: new URL(endpoints.saveList),
      sendListUrl: new URL(endpoints.sendList),
    });
  }
  return profiles;
}
