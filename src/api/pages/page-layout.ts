import { html, SafeHtml } from '../../accounts/emails/html.ts';
import { pageStylesheet } from './page-stylesheet.ts';

export interface PageParts {
  appName: string;
  /** Heading of the page, also the start of its title. */
  heading: string;
  body: SafeHtml;
}

// Trusted constant text, inserted as is: escaping would change it and break its hash in the CSP.
const style = new SafeHtml(`<style>${pageStylesheet}</style>`);

/** A complete account page: the app's name above a heading and the body. */
export function renderPage({ appName, heading, body }: PageParts): string {
  return html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<meta name="robots" content="noindex">
<title>${heading} · ${appName}</title>
${style}
</head>
<body>
<main>
<p class="app">${appName}</p>
<h1>${heading}</h1>
${body}
</main>
</body>
</html>
`.value;
}
