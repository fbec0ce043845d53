/** Name of the console's session cookie. */
export const sessionCookieName = 'herald_console';

/** Name of the cookie that carries the sign-in form's CSRF token before there is a session. */
export const signInCookieName = 'herald_console_signin';

/** Where the console's cookies are sent: the console's own paths only, never the API's. */
export const cookiePath = '/console';

export interface CookieOptions {
  /** Only over HTTPS: the request came over TLS (directly, or as a trusted proxy says). */
  secure: boolean;
  /** Seconds until the browser drops it; absent for a cookie that lives as long as the browser session. */
  maxAgeSeconds?: number;
}

/** A `Set-Cookie` value: HttpOnly, SameSite=Strict, on the console's path, Secure over TLS. */
export function serializeCookie(name: string, value: string, options: CookieOptions): string {
  const parts = [`${name}=${value}`, `Path=${cookiePath}`, 'HttpOnly', 'SameSite=Strict'];
  if (options.secure) parts.push('Secure');
  if (options.maxAgeSeconds !== undefined) parts.push(`Max-Age=${options.maxAgeSeconds}`);
  return parts.join('; ');
}

/** A `Set-Cookie` value that removes the cookie. */
export function clearedCookie(name: string, secure: boolean): string {
  return serializeCookie(name, '', { secure, maxAgeSeconds: 0 });
}

/** The value of cookie `name` in a `Cookie` header; the first one when repeated, undefined when absent. */
export function readCookie(header: string | undefined, name: string): string | undefined {
  if (header === undefined) return undefined;
  for (const part of header.split(';')) {
    const at = part.indexOf('=');
    if (at < 0) continue;
    if (part.slice(0, at).trim() === name) return part.slice(at + 1).trim();
  }
  return undefined;
}
