import { createHash, timingSafeEqual } from 'node:crypto';

/**
 * Passwords exported by the hosted service: base64 of SHA-512 over the
 * user's salt then the password, hashed again with SHA-512 512 more times.
 * An imported user keeps logging in with the old password; the first login
 * replaces the hash with Herald's argon2id (see login).
 *
 * Stored in the user's password-hash field as
 * `$hosted-sha512$<salt, base64url>$<hash, base64>`, so the field says
 * which check it needs.
 */
const prefix = '$hosted-sha512$';
const rounds = 512;

/** The hosted service's hash of `password` with `salt`, base64. */
export function hostedPasswordHash(salt: string, password: string): string {
  let digest = createHash('sha512').update(salt, 'utf8').update(password, 'utf8').digest();
  for (let round = 0; round < rounds; round += 1) digest = createHash('sha512').update(digest).digest();
  return digest.toString('base64');
}

/** The stored form of an exported `password` (hash) and `salt`. */
export function encodeHostedHash(salt: string, hash: string): string {
  return `${prefix}${Buffer.from(salt, 'utf8').toString('base64url')}$${hash}`;
}

export function isHostedHash(stored: unknown): stored is string {
  return typeof stored === 'string' && stored.startsWith(prefix);
}

/** Whether `password` matches a stored hosted hash; a malformed one never matches. */
export function verifyHostedHash(stored: string, password: string): boolean {
  const [salt64, hash] = stored.slice(prefix.length).split('$');
  if (salt64 === undefined || hash === undefined || hash === '') return false;
  const expected = Buffer.from(hash, 'base64');
  const actual = Buffer.from(hostedPasswordHash(Buffer.from(salt64, 'base64url').toString('utf8'), password), 'base64');
  return expected.length === actual.length && timingSafeEqual(expected, actual);
}
