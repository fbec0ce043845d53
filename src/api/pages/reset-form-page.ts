import { html } from '../../accounts/emails/html.ts';
import { renderPage } from './page-layout.ts';

/** Shortest password the reset form accepts unless told otherwise; the server checks again. */
export const defaultResetPasswordMinLength = 8;

export interface ResetFormInput {
  appName: string;
  username: string;
  /** Where the form posts `password` and `confirm`, urlencoded: a path on this origin or an http(s) URL. */
  actionUrl: string;
  /** Shown above the form after a rejected attempt, e.g. "The passwords do not match". */
  error?: string;
  minLength?: number;
}

/**
 * The form behind `GET /1.1/resetPassword/<token>`. Without scripts, the
 * browser enforces `required` and `minlength`; whether `confirm` equals
 * `password` is checked by the server.
 */
export function renderResetForm({ appName, username, actionUrl, error, minLength = defaultResetPasswordMinLength }: ResetFormInput): string {
  const action = formAction(actionUrl);
  return renderPage({
    appName,
    heading: 'Choose a new password',
    body: html`<p>Enter a new password for <strong>${username}</strong>.</p>
${error === undefined ? null : html`<p class="error" role="alert">${error}</p>`}
<form method="post" action="${action}" enctype="application/x-www-form-urlencoded">
<input type="text" autocomplete="username" value="${username}" hidden readonly>
<label for="password">New password</label>
<input id="password" name="password" type="password" autocomplete="new-password" required minlength="${minLength}" aria-describedby="password-hint">
<p class="hint" id="password-hint">At least ${minLength} characters.</p>
<label for="confirm">Confirm new password</label>
<input id="confirm" name="confirm" type="password" autocomplete="new-password" required minlength="${minLength}">
<button type="submit">Set new password</button>
</form>`,
  });
}

function formAction(url: string): string {
  if (url.startsWith('/') && !url.startsWith('//')) return url;
  const parsed = URL.parse(url);
  if (parsed !== null && (parsed.protocol === 'http:' || parsed.protocol === 'https:')) return url;
  throw new TypeError('actionUrl must be a path or an absolute http(s) URL');
}
