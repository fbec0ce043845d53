import { html, type HtmlValue, type SafeHtml } from '../../accounts/emails/html.ts';
import type { ConsoleAccount } from '../../config/console-schema.ts';
import { consolePath } from '../console-paths.ts';

/** The sections of an app, in the order of its navigation. */
export type AppSection = 'overview' | 'pushes' | 'compose' | 'scheduled' | 'devices' | 'users' | 'settings';

export interface PageFrame {
  title: string;
  /** The signed-in account and the session's CSRF token (for the sign-out forms); absent on the sign-in page. */
  signedIn?: { account: ConsoleAccount; csrf: string };
  /** The app the page is about, and which of its sections. */
  app?: { id: string; name: string; section: AppSection; sections: readonly AppSection[] };
  /** A sentence of confirmation after a change. */
  notice?: string | undefined;
  /** A sentence saying what went wrong. */
  error?: string | undefined;
  body: SafeHtml;
}

const sectionNames: Record<AppSection, string> = {
  overview: 'Overview',
  pushes: 'Pushes',
  compose: 'Compose',
  scheduled: 'Scheduled',
  devices: 'Devices',
  users: 'Users',
  settings: 'Settings',
};

/** A whole console page: header, the app's sections, the heading and the body. Styles and script come from Herald's own files. */
export function renderConsolePage(frame: PageFrame): string {
  return html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex">
<title>${frame.title} · Herald console</title>
<link rel="icon" href="${consolePath('/static/favicon.svg')}" type="image/svg+xml">
<link rel="stylesheet" href="${consolePath('/static/console.css')}">
<script src="${consolePath('/static/console.js')}" defer></script>
</head>
<body>
<a class="skip" href="#main">Skip to content</a>
<header class="top">
<a class="brand" href="${consolePath('/')}">Herald console</a>
${frame.signedIn === undefined ? null : accountBar(frame.signedIn)}
</header>
${frame.app === undefined ? null : sectionNav(frame.app)}
<main id="main">
${frame.app === undefined ? null : html`<p class="app-name">${frame.app.name}</p>`}
<h1>${frame.title}</h1>
${frame.notice === undefined ? null : html`<p class="notice" role="status">${frame.notice}</p>`}
${frame.error === undefined ? null : html`<p class="error" role="alert">${frame.error}</p>`}
${frame.body}
</main>
</body>
</html>
`.value;
}

function accountBar({ account, csrf }: { account: ConsoleAccount; csrf: string }): SafeHtml {
  return html`<div class="who">
<span>${account.username} (${account.role})</span>
${account.role === 'admin' ? html`<a href="${consolePath('/audit')}">Audit log</a>` : null}
<form method="post" action="${consolePath('/sign-out')}">${csrfField(csrf)}<button type="submit">Sign out</button></form>
<form method="post" action="${consolePath('/sign-out-everywhere')}">${csrfField(csrf)}<button type="submit">Sign out everywhere</button></form>
</div>`;
}

function sectionNav(app: NonNullable<PageFrame['app']>): SafeHtml {
  return html`<nav aria-label="${app.name}"><ul class="sections">
${app.sections.map(
  (section) => html`<li><a href="${appPath(app.id, section === 'overview' ? '' : `/${section}`)}"${section === app.section ? html` aria-current="page"` : null}>${sectionNames[section]}</a></li>`,
)}
</ul></nav>`;
}

/** The hidden field every change carries: the session's synchronizer token. */
export function csrfField(csrf: string): SafeHtml {
  return html`<input type="hidden" name="_csrf" value="${csrf}">`;
}

/** A path under an app: `/console/apps/<id><rest>`. */
export function appPath(appId: string, rest = ''): string {
  return consolePath(`/apps/${encodeURIComponent(appId)}${rest}`);
}

/** A table in a scrolling region that a keyboard can reach. */
export function table(caption: string, head: readonly string[], rows: readonly HtmlValue[], options: { numeric?: readonly number[]; empty?: string } = {}): SafeHtml {
  if (rows.length === 0) return html`<p class="muted">${options.empty ?? 'Nothing to show.'}</p>`;
  const numeric = new Set(options.numeric ?? []);
  return html`<div class="table-wrap" role="region" aria-label="${caption}" tabindex="0"><table>
<caption>${caption}</caption>
<thead><tr>${head.map((name, index) => html`<th scope="col"${numeric.has(index) ? html` class="num"` : null}>${name}</th>`)}</tr></thead>
<tbody>${rows}</tbody>
</table></div>`;
}

/** Facts as a definition list. */
export function facts(entries: readonly [string, HtmlValue][]): SafeHtml {
  return html`<dl class="facts">${entries.map(([term, value]) => html`<dt>${term}</dt><dd>${value}</dd>`)}</dl>`;
}

/** A stored value as text for a page: strings and numbers as they are, anything else `fallback`. */
export function textOf(value: unknown, fallback = '–'): string {
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  return fallback;
}
