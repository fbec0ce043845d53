/** Where the console is served, on the API port or on a port of its own. */
export const consoleBase = '/console';

/** A path of the console: `consolePath('/apps')` is `/console/apps`. */
export function consolePath(rest: string): string {
  return `${consoleBase}${rest}`;
}

/**
 * Where to go after signing in: a path of the console as given, or the
 * console's start. Anything else (another origin, `//host`, a backslash
 * trick) is refused, so the sign-in page is no open redirect.
 */
export function safeNext(next: unknown): string {
  if (typeof next !== 'string' || next.length > 2048) return consolePath('/');
  if (!next.startsWith(`${consoleBase}/`) || next.includes('\\') || next.includes('//') || /[\p{Cc}]/u.test(next)) return consolePath('/');
  return next;
}
