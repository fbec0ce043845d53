import { html } from '../../accounts/emails/html.ts';
import { renderPage } from './page-layout.ts';

/** The page shown after a password was reset through the form. */
export function renderResetDone({ appName }: { appName: string }): string {
  return renderPage({
    appName,
    heading: 'Password changed',
    body: html`<p class="ok">Your password has been changed.</p>
<p class="hint">Log in to ${appName} with your new password. Sessions that used the old password have ended.</p>`,
  });
}
