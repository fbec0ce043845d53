import { emailButton, emailLayout, oneLine, type AccountEmail } from './email-layout.ts';
import { formatDuration } from './format-duration.ts';
import { html, httpUrl } from './html.ts';

export interface PasswordResetEmailInput {
  appName: string;
  /** The absolute link to the reset form; it works once. */
  link: string;
  /** Lifetime of the link, from the app's `passwordResetTtlSeconds`. */
  ttlMinutes: number;
}

/**
 * The message sent for `POST /1.1/requestPasswordReset`. It carries no text a
 * user chose (such as a username), so nobody can make it say something else
 * to the address owner.
 */
export function passwordResetEmail({ appName, link, ttlMinutes }: PasswordResetEmailInput): AccountEmail {
  const href = httpUrl(link);
  const lifetime = formatDuration(ttlMinutes);
  const subject = oneLine(`Reset your ${appName} password`);
  const text = [
    'Hello,',
    '',
    `Someone asked to reset the password of your ${appName} account. To choose a new password, open this link:`,
    '',
    href,
    '',
    `The link works once and expires in ${lifetime}. If you did not ask for this, ignore this message; your password stays the same.`,
    '',
  ].join('\n');
  const body = html`<h1 style="font-size:20px;margin:0 0 16px">Reset your password</h1>
<p>Hello,</p>
<p>Someone asked to reset the password of your ${appName} account.</p>
${emailButton(href, 'Choose a new password')}
<p style="font-size:13px;color:#57606a">Or open this link: <a href="${href}" style="color:#0b5fff;word-break:break-all">${href}</a></p>
<p style="font-size:13px;color:#57606a">The link works once and expires in ${lifetime}. If you did not ask for this, ignore this message; your password stays the same.</p>`;
  return { subject, text, html: emailLayout(subject, body) };
}
