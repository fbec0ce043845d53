import { html, type SafeHtml } from '../../accounts/emails/html.ts';
import type { AppConfig } from '../../config/schema.ts';
import type { ConsoleAccount } from '../../config/console-schema.ts';
import { appGatewaysOf, gatewayList } from '../../push/gateways/app-gateways.ts';
import { facts, table } from './layout.ts';

const yesNo = (value: boolean): string => (value ? 'yes' : 'no');

/**
 * An app's settings as an admin sees them: what the app is configured to
 * do, and which gateways it has. Keys, passwords and credential files are
 * never shown (they stay in the deployment's configuration).
 */
export function renderSettings(app: AppConfig, accounts: ConsoleAccount[]): SafeHtml {
  const { settings } = app;
  const gateways = appGatewaysOf(app.push);
  return html`<h2>Accounts</h2>
${facts([
  ['App id', html`<code>${app.id}</code>`],
  ['Email verification', yesNo(settings.emailVerification)],
  ['Refuse login until the email is verified', yesNo(settings.refuseUnverifiedEmailLogin)],
  ['New session after a password change', yesNo(settings.forceReloginAfterPasswordChange)],
  ['Clients may send pushes', yesNo(settings.clientPushAllowed)],
  ['Password reset links live', `${Math.round(settings.passwordResetTtlSeconds / 60)} minutes`],
  ['Protected fields', Object.entries(settings.protectedFields).map(([name, fields]) => `${name}: ${fields.join(', ') || 'none'}`).join('; ')],
  ['Mail', app.mail.smtp === undefined ? 'written to the outbox (no SMTP server)' : `SMTP ${app.mail.smtp.host}:${app.mail.smtp.port}`],
  ['SMS codes', app.sms.webhookUrl === undefined ? 'written to the outbox (no webhook)' : 'sent through the webhook'],
])}
<h2>Push gateways</h2>
${facts([
  ['Configured', gatewayList(gateways).join(', ') || 'none'],
  ['APNs environments', [...gateways.apns].join(', ') || 'none'],
  ['Default APNs topic', app.push.apns?.topic ?? '–'],
])}
<p class="hint">Keys, passwords and credential files are not shown; they stay in the deployment's configuration.</p>
<h2>Console accounts that see this app</h2>
${table(
  'Console accounts',
  ['Username', 'Role', 'Apps'],
  accounts.map((account) => html`<tr><td>${account.username}</td><td>${account.role}</td><td>${account.apps.join(', ')}</td></tr>`),
)}`;
}
