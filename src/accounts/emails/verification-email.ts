import { emailButton, emailLayout, oneLine, type AccountEmail } from './email-layout.ts';
import { formatDuration } from './format-duration.ts';
import { html, httpUrl } from './html.ts';

export interface VerificationEmailInput {
  appName: string;
  email: string;
  /** The absolute verification link; it works once. */
  link: string;
}

/** Verification links expire after one week (SPEC.md, Limits). */
const linkLifetimeMinutes = 7 * 24 * 60;

/**
 * The message sent when an email address is set or changed while verification
 * is on. It carries no text a user chose (such as a username), so nobody can
 * make it say something else to the address owner.
 */
export function verificationEmail({ appName, email, link }: VerificationEmailInput): AccountEmail {
  const href = httpUrl(link);
  const lifetime = formatDuration(linkLifetimeMinutes);
  const subject = oneLine(`Verify your email address for ${appName}`);
  const text = [
    'Hello,',
    '',
    `Please confirm that ${email} is your email address for ${appName} by opening this link:`,
    '',
    href,
    '',
    `The link works once and expires in ${lifetime}. If you did not use this address with ${appName}, you can ignore this message.`,
    '',
  ].join('\n');
  const body = html`<h1 style="font-size:20px;margin:0 0 16px">Verify your email address</h1>
<p>Hello,</p>
<p>Please confirm that <strong>${email}</strong> is your email address for ${appName}.</p>
${emailButton(href, 'Verify email address')}
<p style="font-size:13px;color:#57606a">Or open this link: <a href="${href}" style="color:#0b5fff;word-break:break-all">${href}</a></p>
<p style="font-size:13px;color:#57606a">The link works once and expires in ${lifetime}. If you did not use this address with ${appName}, you can ignore this message.</p>`;
  return { subject, text, html: emailLayout(subject, body) };
}
