import { createHash, randomBytes, randomFillSync } from 'node:crypto';

/** Bytes of one id; the pool holds 256 ids, filled by one call to the CSPRNG (a call costs about what 15 ids from the pool do). */
const idBytes = 12;
const idPool = Buffer.alloc(idBytes * 256);
let idPoolOffset = idPool.length;

/**
 * 24 lowercase hex digits (96 random bits) from the CSPRNG, drawn 256 ids
 * at a time: an import claims a value and a busy node creates an object
 * thousands of times a second. Ids are unique, not secret; secrets
 * (`newSecret`) draw their own bytes.
 */
export function randomHexId(): string {
  if (idPoolOffset === idPool.length) {
    randomFillSync(idPool);
    idPoolOffset = 0;
  }
  const id = idPool.toString('hex', idPoolOffset, idPoolOffset + idBytes);
  idPoolOffset += idBytes;
  return id;
}

/** A new object id: 24 lowercase hex digits (96 random bits). */
export function newObjectId(): string {
  return randomHexId();
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
