import type { Request } from 'express';

/**
 * Whether a change comes from a page of this console: `Sec-Fetch-Site`,
 * when sent, says same-origin (or none: typed by the person); `Origin`,
 * when sent, is this origin; without one, a `Referer` must be of this
 * origin. A request with neither (no browser sends a form post so) still
 * needs the session's CSRF token. The origin is the request's protocol and
 * host, as a trusted proxy reports them (`console.trustProxy`).
 */
export function fromSameOrigin(req: Request): boolean {
  const expected = `${req.protocol}://${req.host}`;
  const site = req.get('sec-fetch-site');
  if (site !== undefined && site !== 'same-origin' && site !== 'none') return false;
  const origin = req.get('origin');
  if (origin !== undefined) return origin === expected;
  const referer = req.get('referer');
  if (referer !== undefined) return URL.parse(referer)?.origin === expected;
  return true;
}
