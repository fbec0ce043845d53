/**
 * Content-Security-Policy of every console answer: scripts, styles, images
 * and connections (the live progress stream, the preview) from Herald
 * itself only, nothing inline, forms posting back to it, no framing.
 */
export const consoleContentSecurityPolicy = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self'",
  "connect-src 'self'",
  "form-action 'self'",
  "base-uri 'none'",
  "frame-ancestors 'none'",
].join('; ');

/**
 * Headers of every console answer. `Referrer-Policy: same-origin` rather
 * than `no-referrer`: under `no-referrer` a browser sends `Origin: null`
 * with a form post, and the console checks the Origin of every change.
 */
export const consoleHeaders: Readonly<Record<string, string>> = Object.freeze({
  'Content-Security-Policy': consoleContentSecurityPolicy,
  'Referrer-Policy': 'same-origin',
  'X-Content-Type-Options': 'nosniff',
  'X-Frame-Options': 'DENY',
  'Cross-Origin-Opener-Policy': 'same-origin',
  'Cross-Origin-Resource-Policy': 'same-origin',
  'Cache-Control': 'no-store',
});
