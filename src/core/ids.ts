import { createHash, randomBytes } from 'node:crypto';

/** A new object id: 24 lowercase hex digits (96 random bits). */
export function newObjectId(): string {
  return randomBytes(12).toString('hex');
}

/** A secret for session tokens and emailed links: 160 bits from the CSPRNG, lowercase base32. */
export function newSecret(): string {
  const alphabet = 'abcdefghijklmnopqrstuvwxyz234567';
  const bytes = randomBytes(20);
  let bits = 0;
  let value = 0;
  let out = '';
  for (const byte of bytes) {
    value = (value << 8) | byte;
    bits += 8;
    while (bits >= 5) {
      out += alphabet[(value >>> (bits - 5)) & 31];
      bits -= 5;
    }
  }
  return out;
}

/** SHA-256 hex digest; secrets are stored only as their digest. */
export function digest(secret: string): string {
  return createHash('sha256').update(secret).digest('hex');
}
