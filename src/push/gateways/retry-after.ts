/**
 * Reads a `Retry-After` header, delay-seconds or an HTTP date (RFC 9110
 * 10.2.3), as milliseconds from `now`; undefined when absent or unreadable.
 */
export function parseRetryAfter(text: string | undefined, now: number): number | undefined {
  if (text === undefined || text === '') return undefined;
  if (/^\d+$/.test(text)) return Number(text) * 1000;
  const at = Date.parse(text);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}
