import { html } from '../../accounts/emails/html.ts';
import { renderPage } from './page-layout.ts';

/** The page for a reset link that is unknown, expired or already used. */
export function renderResetInvalid({ appName }: { appName: string }): string {
  return renderPage({
    appName,
    heading: 'Link not valid',
    body: html`<p class="error" role="alert">This password reset link is invalid, expired or already used.</p>
<p class="hint">Ask ${appName} to send a new password reset email.</p>`,
  });
}
