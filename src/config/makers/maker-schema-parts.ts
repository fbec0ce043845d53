import { z } from 'zod';

/**
 * Pieces every phone maker's config block (`apps[].push.<maker>`) is made
 * of: profile names, endpoint URLs and secret files.
 */

/**
 * A profile name, as an installation's `deviceProfile` holds it: `_default`
 * (an empty deviceProfile), or a letter then letters, digits and `_` (the
 * hosted service's rule), at most 64 characters.
 */
export const makerProfileName = z.string().regex(/^(?:_default|[A-Za-z][A-Za-z0-9_]{0,63})$/, '_default, or a letter then letters, digits and _ (at most 64)');

/** A file holding one secret on one line (a trailing newline is ignored); secrets never go in the config itself. */
export const secretFile = z.string().min(1);

/**
 * An https URL of a maker's endpoint, path included; `{appId}` in it is
 * replaced by the profile's app id. No query or fragment: the makers' APIs
 * take none, and a proxy or a test stands in by host and path.
 */
export const makerEndpointUrl = z.url().refine((url) => {
  const parsed = new URL(url);
  return parsed.protocol === 'https:' && parsed.search === '' && parsed.hash === '' && parsed.username === '' && parsed.password === '';
}, 'expected an https URL with no query, fragment or credentials');

/** `profiles` of a maker block: at least one, by name. */
export function makerProfiles<T extends z.ZodType>(profile: T) {
  return z
    .record(makerProfileName, profile)
    .refine((profiles) => Object.keys(profiles).length > 0, 'name at least one profile (_default serves installations without a deviceProfile)')
    .describe('configurations by name, chosen by an installation\'s deviceProfile (_default when it is empty) or a push\'s device_profile');
}
