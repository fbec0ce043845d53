import argon2 from 'argon2';
import { isHostedHash, verifyHostedHash } from './legacy-password.ts';

/** argon2id with the OWASP parameters chosen in SPEC-NOTES.md. */
const hashOptions = { type: argon2.argon2id, memoryCost: 19_456, timeCost: 2, parallelism: 1 } as const;

export function hashPassword(password: string): Promise<string> {
  return argon2.hash(password, hashOptions);
}

/**
 * Answers whether `password` matches `hash`: Herald's argon2id, or a hash
 * imported from the hosted service (`needsRehash` then says to replace it).
 * A malformed hash never matches.
 */
export async function verifyPassword(hash: unknown, password: string): Promise<boolean> {
  if (isHostedHash(hash)) return verifyHostedHash(hash, password);
  if (typeof hash !== 'string' || !hash.startsWith('$argon2')) return false;
  try {
    return await argon2.verify(hash, password);
  } catch {
    return false;
  }
}

/** Whether a stored hash should be replaced by Herald's own once the password is known (an imported one). */
export function needsRehash(hash: unknown): boolean {
  return isHostedHash(hash);
}
