import { html } from '../../accounts/emails/html.ts';
import { renderPage } from './page-layout.ts';

export interface VerifyResultPageInput {
  ok: boolean;
  appName: string;
  /** The address that was verified, when known. */
  email?: string;
  /** An extra sentence for a failed verification, shown below the standard one. */
  reason?: string;
}

/** The page `GET /1.1/verifyEmail/<token>` answers with. */
export function renderVerifyResultPage({ ok, appName, email, reason }: VerifyResultPageInput): string {
  if (ok) {
    const address = email === undefined ? html`Your email address` : html`Your email address <strong>${email}</strong>`;
    return renderPage({
      appName,
      heading: 'Email address verified',
      body: html`<p class="ok">${address} is verified.</p>
<p class="hint">You can close this page and return to ${appName}.</p>`,
    });
  }
  return renderPage({
    appName,
    heading: 'Verification failed',
    body: html`<p class="error" role="alert">This link is invalid, expired or already used.</p>
${reason === undefined ? null : html`<p>${reason}</p>`}
<p class="hint">Ask ${appName} to send a new verification email.</p>`,
  });
}
