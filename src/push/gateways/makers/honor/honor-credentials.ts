import type { HonorAppConfig } from '../../../../config/makers/honor-schema.ts';
import type { CredentialFiles } from '../../credential-files.ts';

/** One Honor profile as its client needs it, its secret read from its file. */
export interface HonorProfile {
  name: string;
  appId: string;
  clientId: string;
  clientSecret: string;
  intentHost: string;
  defaultTitle: string | undefined;
  importance: string | undefined;
  maxTokens: number;
  authUrl: URL;
  /** The send URL with the profile's App ID in it. */
  sendUrl: URL;
}

/** Reads an app's `push.honor` block: each profile with its client secret. Throws `ConfigError` naming the key and file. */
export function loadHonorProfiles(config: HonorAppConfig, files: CredentialFiles, at: string): ReadonlyMap<string, HonorProfile> {
  const profiles = new Map<string, HonorProfile>();
  for (const [name, profile] of Object.entries(config.profiles)) {
    profiles.set(name, {
      name,
      appId: profile.appId,
      clientId: profile.clientId,
      clientSecret: files.secret(`${at}.profiles.${name}.clientSecretFile`, profile.clientSecretFile),
      intentHost: profile.intentHost,
      defaultTitle: profile.defaultTitle,
      importance: profile.importance,
      maxTokens: profile.maxTokensPerRequest,
      authUrl: new URL(config.endpoints.auth),
      sendUrl: new URL(config.endpoints.send.replaceAll('{appId}', encodeURIComponent(profile.appId))),
    });
  }
  return profiles;
}
