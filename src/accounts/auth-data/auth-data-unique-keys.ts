import type { UniqueKey } from '../../core/ports/object-store.ts';
import { heraldPlatformKey, heraldPlatformObject } from './hosted-platform-keys.ts';
import { platformKindFor } from './platform-registry.ts';
import { kindRules } from './platform-rules.ts';
import type { NormalizedAuthData } from './validate-auth-data.ts';

/**
 * The unique keys of validated authData, one per platform (SPEC Rule 1): a
 * third-party account binds to at most one user of an app.
 */
export function authDataUniqueKeys(authData: NormalizedAuthData): UniqueKey[] {
  return authData.map((entry) => ({ field: `authData.${entry.platform}.uid`, value: entry.identity }));
}

/**
 * The same keys read leniently from a stored user's `authData`, for the `_User`
 * class descriptor: stored data may predate today's rules (imports, older
 * releases), and a descriptor must not throw, so entries without a usable
 * identity, or under a reserved `_` key, are skipped rather than rejected.
 */
export function storedAuthDataUniqueKeys(authData: unknown): UniqueKey[] {
  if (typeof authData !== 'object' || authData === null || Array.isArray(authData)) return [];
  const keys: UniqueKey[] = [];
  for (const [storedKey, storedValue] of Object.entries(authData as Record<string, unknown>)) {
    // Under Herald's key, as a login would look it up, even for data stored in the hosted service's spelling.
    const platform = heraldPlatformKey(storedKey);
    const value = heraldPlatformObject(platform, storedValue);
    if (platform.startsWith('_') || typeof value !== 'object' || value === null || Array.isArray(value)) continue;
    const data = value as Record<string, unknown>;
    const identityKey = kindRules[platformKindFor(platform, data)].identityKey;
    const identity = Object.hasOwn(data, identityKey) ? data[identityKey] : undefined;
    if (typeof identity === 'string' && identity !== '') keys.push({ field: `authData.${platform}.uid`, value: identity });
  }
  return keys;
}
