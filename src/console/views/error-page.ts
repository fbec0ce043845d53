import { html, type SafeHtml } from '../../accounts/emails/html.ts';
import { consolePath } from '../console-paths.ts';

/** The body of an error page: what went wrong was said above it; this offers a way on. */
export function renderErrorBody(status: number): SafeHtml {
  if (status === 401) return html`<p><a href="${consolePath('/sign-in')}">Sign in</a></p>`;
  return html`<p><a href="${consolePath('/')}">Back to the apps</a></p>`;
}
