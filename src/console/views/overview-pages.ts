import { html, type SafeHtml } from '../../accounts/emails/html.ts';
import type { AuditEntry } from '../audit/audit-log.ts';
import type { AppOverview, PlatformActivity } from '../overview/app-overview.ts';
import type { GatewayHealth } from '../overview/gateway-health.ts';
import { appPath, facts, table } from './layout.ts';

/** Share as a whole percentage, or an en dash when there is nothing to divide. */
export function percent(part: number, whole: number): string {
  return whole === 0 ? '–' : `${Math.round((part / whole) * 100)}%`;
}

/** A bar showing a success rate; its width comes from a class (the CSP allows no inline style). */
export function rateBar(part: number, whole: number): SafeHtml {
  const tenths = whole === 0 ? 0 : Math.round((part / whole) * 10) * 10;
  return html`<span class="bar" aria-hidden="true"><span class="w${tenths}"></span></span>`;
}

/** The console's start: the apps the account sees, and the gateways' health in this process. */
export function renderHome(apps: { id: string; name: string }[], health: GatewayHealth): SafeHtml {
  return html`<h2>Apps</h2>
${table(
  'Your apps',
  ['App', 'Id', ''],
  apps.map((app) => html`<tr><td><a href="${appPath(app.id)}">${app.name}</a></td><td><code>${app.id}</code></td><td><a href="${appPath(app.id, '/pushes')}">Pushes</a> · <a href="${appPath(app.id, '/devices')}">Devices</a> · <a href="${appPath(app.id, '/users')}">Users</a></td></tr>`),
  { empty: 'This account sees no app.' },
)}
${renderGatewayHealth(health)}`;
}

/** Gateways and backends as this process's metrics see them. */
export function renderGatewayHealth(health: GatewayHealth): SafeHtml {
  const active = health.gateways.filter((gateway) => gateway.delivered + gateway.failed + gateway.invalidToken + gateway.notSent + gateway.sessions > 0);
  return html`<h2>Gateway health</h2>
<p class="hint">Deliveries by the senders of the Herald process serving this page, since it started (Herald's metrics); a process without the sender role shows none.</p>
${table(
  'Gateways',
  ['Gateway', 'Delivered', 'Invalid tokens', 'Failed', 'Not sent', 'Success', 'Open sessions', 'Top reasons'],
  active.map((gateway) => {
    const tried = gateway.delivered + gateway.failed + gateway.invalidToken + gateway.notSent;
    return html`<tr><td>${gateway.gateway}</td><td class="num">${gateway.delivered}</td><td class="num">${gateway.invalidToken}</td><td class="num">${gateway.failed}</td><td class="num">${gateway.notSent}</td><td>${percent(gateway.delivered, tried)} ${rateBar(gateway.delivered, tried)}</td><td class="num">${gateway.sessions}</td><td>${gateway.reasons.map((reason) => `${reason.reason} ${reason.count}`).join(', ') || '–'}</td></tr>`;
  }),
  { numeric: [1, 2, 3, 4, 6], empty: 'No delivery yet in this process.' },
)}
${table(
  'Backends',
  ['Backend', 'State'],
  health.dependencies.map((dependency) => html`<tr><td>${dependency.dependency}${dependency.required ? null : ' (optional)'}</td><td class="${dependency.up ? 'ok' : 'bad'}">${dependency.up ? 'answering' : 'not answering'}</td></tr>`),
  { empty: 'No backend reported yet.' },
)}`;
}

function activityRow(name: string, activity: PlatformActivity): SafeHtml {
  return html`<tr><td>${name}</td><td class="num">${activity.total}</td><td class="num">${activity.day}</td><td class="num">${activity.week}</td><td class="num">${activity.month}</td><td class="num">${activity.active}</td><td class="num">${activity.total - activity.active}</td></tr>`;
}

/** One app's overview: installations by platform and activity, the last 7 days of pushes, the gateways. */
export function renderAppOverview(appId: string, overview: AppOverview, health: GatewayHealth, idleDays: number): SafeHtml {
  const { installations } = overview;
  const week = overview.pushDays.reduce(
    (sum, day) => ({ pushes: sum.pushes + day.pushes, devices: sum.devices + day.devices, successes: sum.successes + day.successes, errors: sum.errors + day.errors }),
    { pushes: 0, devices: 0, successes: 0, errors: 0 },
  );
  return html`<h2>Installations</h2>
${overview.installationsCapped ? html`<p class="hint">Counting stopped after 200,000 installations: the figures are at least these.</p>` : null}
${table(
  'Installations by platform and when they were last saved',
  ['Platform', 'All', 'Last day', 'Last 7 days', 'Last 30 days', `Active (${idleDays} days)`, 'Idle'],
  [activityRow('iOS', installations.ios), activityRow('Android', installations.android)],
  { numeric: [1, 2, 3, 4, 5, 6] },
)}
<h2>Pushes of the last 7 days</h2>
${facts([
  ['Pushes', String(week.pushes)],
  ['Devices targeted', String(week.devices)],
  ['Delivered', `${week.successes} (${percent(week.successes, week.devices)})`],
  ['Failed', String(week.errors)],
])}
${table(
  'Pushes by day (UTC)',
  ['Day', 'Pushes', 'Devices', 'Delivered', 'Failed', 'Invalid tokens', 'Success rate'],
  overview.pushDays.map(
    (day) =>
      html`<tr><td><a href="${appPath(appId, `/pushes?from=${day.day}&to=${day.day}`)}">${day.day}</a></td><td class="num">${day.pushes}</td><td class="num">${day.devices}</td><td class="num">${day.successes}</td><td class="num">${day.errors}</td><td class="num">${day.invalidTokens}</td><td>${percent(day.successes, day.devices)} ${rateBar(day.successes, day.devices)}</td></tr>`,
  ),
  { numeric: [1, 2, 3, 4, 5] },
)}
${table('Failure reasons of the last 7 days', ['Reason', 'Devices'], overview.reasons.map((reason) => html`<tr><td>${reason.reason}</td><td class="num">${reason.count}</td></tr>`), { numeric: [1], empty: 'No failure in the last 7 days.' })}
${renderGatewayHealth(health)}`;
}

/** The audit log, newest first. */
export function renderAudit(entries: AuditEntry[]): SafeHtml {
  return table(
    'Changes made through the console, newest first',
    ['When (UTC)', 'Who', 'What', 'App', 'Target', 'Outcome', 'Detail'],
    entries.map(
      (entry) =>
        html`<tr><td>${entry.at}</td><td>${entry.actor}</td><td><code>${entry.action}</code></td><td>${entry.app ?? '–'}</td><td>${entry.target === null ? '–' : html`<code>${entry.target}</code>`}</td><td class="${entry.outcome === 'ok' ? 'ok' : 'bad'}">${entry.outcome}</td><td>${entry.detail}</td></tr>`,
    ),
    { empty: 'Nothing recorded yet.' },
  );
}
