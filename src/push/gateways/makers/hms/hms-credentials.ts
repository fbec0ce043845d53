import type { HmsAppConfig } from '../../../../config/makers/hms-schema.ts';
import type { CredentialFiles } from '../../credential-files.ts';

/** One HMS profile as its client needs it, its secret read from its file. */
export interface HmsProfile {
  name: string;
  appId: string;
  clientId: string;
  clientSecret: string;
  intentHost: string;
  defaultTitle: string | undefined;
  category: string | undefined;
  maxTokens: number;
  authUrl: URL;
  /** The send URL with the profile's App ID in it. */
  sendUrl: URL;
}

/** Reads an app's `push.hms` block: each profile with its client secret. Throws `ConfigError` naming the key and file. */
export function loadHmsProfiles(config: HmsAppConfig, files: CredentialFiles, at: string): ReadonlyMap<string, HmsProfile> {
  const profiles = new Map<string, HmsProfile>();
  for (const [name, profile] of Object.entries(config.profiles)) {
    profiles.set(name, {
      name,
      appId: profile.appId,
      clientId: profile.clientId ?? profile.appId,
      clientSecret: files.secret(`${at}.profiles.${name}.clientSecretFile`, profile.clientSecretFile),
      intentHost: profile.intentHost,
      defaultTitle: profile.defaultTitle,
      category: profile.category,
      maxTokens: profile.maxTokensPerRequest,
      authUrl: new URL(config.endpoints.auth),
      sendUrl: new URL(config.endpoints.send.replaceAll('{appId}', encodeURIComponent(profile.appId))),
    });
  }
  return profiles;
}
