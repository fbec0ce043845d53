import { createHash } from 'node:crypto';
import { pageStylesheet } from './page-stylesheet.ts';

const styleHash = createHash('sha256').update(pageStylesheet, 'utf8').digest('base64');

/**
 * Content-Security-Policy of the account pages: nothing loads or runs except
 * the inline stylesheet (allowed by hash), and forms post only to this origin.
 */
export const pageContentSecurityPolicy = [
  "default-src 'none'",
  `style-src 'sha256-${styleHash}'`,
  "form-action 'self'",
  "base-uri 'none'",
  "frame-ancestors 'none'",
].join('; ');

/**
 * Headers to send with every account page. The URL holds a one-time token,
 * so it is neither cached nor leaked through the Referer header.
 */
export const pageHeaders: Readonly<Record<string, string>> = Object.freeze({
  'Content-Type': 'text/html; charset=utf-8',
  'Content-Security-Policy': pageContentSecurityPolicy,
  'Referrer-Policy': 'no-referrer',
  'X-Content-Type-Options': 'nosniff',
  'Cache-Control': 'no-store',
});
