import { createHash, timingSafeEqual } from 'node:crypto';

/** Compares two secrets in time independent of where they differ or of their lengths. */
export function secretsEqual(given: string, expected: string): boolean {
  const a = createHash('sha256').update(given).digest();
  const b = createHash('sha256').update(expected).digest();
  return timingSafeEqual(a, b);
}
