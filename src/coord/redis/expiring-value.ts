/**
 * Values are stored with the time they expire on the caller's clock,
 * `"<expiresAt>|<value>"`, and read as absent once it has passed. Redis also
 * gets the TTL, so keys go away by themselves; the stored time makes the
 * adapter agree with every other coordination rule, which runs on the times
 * callers pass (and with the embedded adapter, which runs on its clock).
 */
export function encodeExpiring(value: string, expiresAt: number): string {
  return `${Math.ceil(expiresAt)}|${value}`;
}

/** The value, or null when `raw` is absent or expired at `now`. A value without a stored time is taken as live. */
export function decodeExpiring(raw: string | null, now: number): string | null {
  if (raw === null) return null;
  const separator = raw.indexOf('|');
  const expiresAt = separator > 0 ? Number(raw.slice(0, separator)) : Number.NaN;
  if (!Number.isSafeInteger(expiresAt)) return raw;
  return expiresAt > now ? raw.slice(separator + 1) : null;
}
