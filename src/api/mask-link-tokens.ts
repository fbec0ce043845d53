import { LinkKind } from '../accounts/account-links.ts';

const linkPaths = Object.values(LinkKind)
  .map((kind) => kind.path)
  .join('|');
// Case-insensitive, as express routes are: /1.1/VERIFYEMAIL/<token> opens the same page.
const linkTokenPattern = new RegExp(`/(${linkPaths})/([^/.?]*)\\.[^/?]*`, 'gi');

/** Emailed links carry one-time secrets in their path; logs keep only the app part. */
export function maskLinkTokens(url: string): string;
export function maskLinkTokens(url: string | undefined): string | undefined;
export function maskLinkTokens(url: string | undefined): string | undefined {
  return url?.replace(linkTokenPattern, '/$1/$2.[redacted]');
}
