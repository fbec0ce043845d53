import { html } from '../../accounts/emails/html.ts';
import { renderPage } from './page-layout.ts';

export interface VerifyResultPageInput {
  ok: boolean;
  appName: string;
  /** The address that was verified, when known. */
  email?: string;
  /** An extra sentence for a failed verification, shown below the standard one. */
  reason?: string;
  /**
   * Set when verifying handed the account to the address owner and removed a
   * password set before: a link to the form that sets a new one.
   */
  setPasswordUrl?: string;
}

/** The page `GET /1.1/verifyEmail/<token>` answers with. */
export function renderVerifyResultPage({ ok, appName, email, reason, setPasswordUrl }: VerifyResultPageInput): string {
  if (ok) {
    const address = email === undefined ? html`Your email address` : html`Your email address <strong>${email}</strong>`;
    const next =
      setPasswordUrl === undefined
        ? html`<p class="hint">You can close this page and return to ${appName}.</p>`
        : html`<p>For your security, the password and sign-in links set up before this address was confirmed no longer work, and every session has ended.</p>
<p><a class="button" href="${setPasswordUrl}">Choose a password</a></p>`;
    return renderPage({
      appName,
      heading: 'Email address verified',
      body: html`<p class="ok">${address} is verified.</p>
${next}`,
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
