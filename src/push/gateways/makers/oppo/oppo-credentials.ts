import type { OppoAppConfig } from '../../../../config/makers/oppo-schema.ts';
import type { CredentialFiles } from '../../credential-files.ts';
import type { OppoMessageSettings } from './oppo-message.ts';

/** One OPPO profile as its client needs it, its MasterSecret read from its file. */
export interface OppoProfile extends OppoMessageSettings {
  name: string;
  appKey: string;
  masterSecret: string;
  maxTokens: number;
  authUrl: URL;
  sendUrl: URL;
}

/** Reads an app's `push.oppo` block: each profile with its MasterSecret. Throws `ConfigError` naming the key and file. */
export function loadOppoProfiles(config: OppoAppConfig, files: CredentialFiles, at: string): ReadonlyMap<string, OppoProfile> {
  const profiles = new Map<string, OppoProfile>();
  for (const [name, profile] of Object.entries(config.profiles)) {
    profiles.set(name, {
      name,
      appKey: profile.appKey,
      masterSecret: files.secret(`${at}.profiles.${name}.masterSecretFile`, profile.masterSecretFile),
      channelId: profile.channelId,
      category: profile.category,
      notifyLevel: profile.notifyLevel,
      clickActionType: profile.clickActionType,
      clickActionActivity: profile.clickActionActivity,
      clickActionUrl: profile.clickActionUrl,
      defaultTitle: profile.defaultTitle,
      maxTokens: profile.maxTokensPerRequest,
      authUrl: new URL(config.endpoints.auth),
      sendUrl: new URL(config.endpoints.send),
    });
  }
  return profiles;
}
