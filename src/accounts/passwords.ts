import argon2 from 'argon2';

/** argon2id with the OWASP parameters chosen in SPEC-NOTES.md. */
const hashOptions = { type: argon2.argon2id, memoryCost: 19_456, timeCost: 2, parallelism: 1 } as const;

export function hashPassword(password: string): Promise<string> {
  return argon2.hash(password, hashOptions);
}

/** Answers whether `password` matches `hash`; a malformed hash never matches. */
export async function verifyPassword(hash: unknown, password: string): Promise<boolean> {
  if (typeof hash !== 'string' || !hash.startsWith('$argon2')) return false;
  try {
    return await argon2.verify(hash, password);
  } catch {
    return false;
  }
}
