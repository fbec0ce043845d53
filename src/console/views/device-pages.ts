import { html, type SafeHtml } from '../../accounts/emails/html.ts';
import type { DeviceHistory } from '../insight/delivery-insight.ts';
import { appPath, csrfField, facts, table, textOf } from './layout.ts';

type Json = Readonly<Record<string, unknown>>;

export const deviceSearches = {
  token: 'Device token or registrationId',
  registrationId: 'Android registrationId',
  installationId: 'Installation id or objectId',
  channel: 'Channel',
  user: 'User (username or objectId)',
} as const;
export type DeviceSearch = keyof typeof deviceSearches;

const dayMs = 24 * 60 * 60 * 1000;

/** The id a person knows a device by: its iOS token or Android installationId. */
function deviceIdOf(device: Json): string {
  const id = device.deviceType === 'ios' ? device.deviceToken : device.installationId;
  return typeof id === 'string' ? id : '–';
}

/** How long ago a device was saved, and whether that keeps it in pushes' audiences. */
export function activityOf(updatedAt: unknown, now: number, idleDays: number): string {
  const at = Date.parse(String(updatedAt));
  if (!Number.isFinite(at)) return 'unknown';
  const days = Math.floor((now - at) / dayMs);
  const ago = days <= 0 ? 'today' : days === 1 ? 'yesterday' : `${days} days ago`;
  return days > idleDays ? `saved ${ago}: idle, not targeted` : `saved ${ago}`;
}

/** The device search form and what it found. */
export function renderDeviceSearch(appId: string, by: DeviceSearch, q: string, found: Json[] | null, now: number, idleDays: number): SafeHtml {
  return html`<form class="inline" method="get" action="${appPath(appId, '/devices')}" role="search">
<div class="field"><label for="by">Find by</label><select id="by" name="by">${Object.entries(deviceSearches).map(([value, label]) => html`<option value="${value}"${value === by ? html` selected` : null}>${label}</option>`)}</select></div>
<div class="field"><label for="q">Value</label><input id="q" name="q" value="${q}" required maxlength="4096"></div>
<button type="submit">Find</button>
</form>
${
  found === null
    ? html`<p class="hint">Find a device by its token (an iOS device token, else an Android registrationId), its Android registrationId alone, its installationId or objectId, a channel it subscribes to, or its user.</p>`
    : table(
        'Devices found',
        ['Installation', 'Type', 'Token or installation id', 'Vendor', 'Channels', 'Activity'],
        found.map(
          (device) =>
            html`<tr><td><a href="${appPath(appId, `/devices/${String(device.objectId)}`)}"><code>${String(device.objectId)}</code></a></td><td>${textOf(device.deviceType)}</td><td><code>${deviceIdOf(device).slice(0, 80)}</code></td><td>${typeof device.vendor === 'string' ? device.vendor : '–'}</td><td>${Array.isArray(device.channels) ? device.channels.join(', ') : '–'}</td><td>${activityOf(device.updatedAt, now, idleDays)}</td></tr>`,
        ),
        { empty: 'No device found.' },
      )
}`;
}

export interface DevicePageParts {
  appId: string;
  device: Json;
  history: DeviceHistory | null;
  /** The cursor this page of outcomes started at; empty for the latest. */
  historyFrom: string;
  now: number;
  idleDays: number;
  csrf: string;
  mayDelete: boolean;
}

/** One installation: what it is, its channels, its activity, its last outcomes, and delete. */
export function renderDevicePage({ appId, device, history, historyFrom, now, idleDays, csrf, mayDelete }: DevicePageParts): SafeHtml {
  const user = device.user as Record<string, unknown> | undefined;
  const devicePath = (query: Record<string, string>) => appPath(appId, `/devices/${String(device.objectId)}${Object.keys(query).length === 0 ? '' : `?${new URLSearchParams(query).toString()}`}`);
  return html`${facts([
    ['Installation', html`<code>${String(device.objectId)}</code>`],
    ['Type', textOf(device.deviceType)],
    ['Device token', typeof device.deviceToken === 'string' ? html`<code>${device.deviceToken}</code>` : '–'],
    ['Installation id', typeof device.installationId === 'string' ? html`<code>${device.installationId}</code>` : '–'],
    ['Registration id', typeof device.registrationId === 'string' ? html`<code>${device.registrationId}</code>` : '–'],
    ['Vendor', typeof device.vendor === 'string' ? device.vendor : '–'],
    ['Profile', typeof device.deviceProfile === 'string' ? device.deviceProfile : '–'],
    ['User', typeof user?.objectId === 'string' ? html`<a href="${appPath(appId, `/users/${user.objectId}`)}"><code>${user.objectId}</code></a>` : '–'],
    ['Badge', textOf(device.badge)],
    ['Time zone', typeof device.timeZone === 'string' ? device.timeZone : '–'],
    ['Created (UTC)', String(device.createdAt)],
    ['Last saved (UTC)', String(device.updatedAt)],
    ['Activity', activityOf(device.updatedAt, now, idleDays)],
  ])}
<h2>Channels</h2>
${Array.isArray(device.channels) && device.channels.length > 0 ? html`<ul>${device.channels.map((channel) => html`<li><a href="${appPath(appId, `/devices?by=channel&q=${encodeURIComponent(String(channel))}`)}">${String(channel)}</a></li>`)}</ul>` : html`<p class="muted">No channel.</p>`}
<h2 id="history">Last outcomes</h2>
${
  history === null
    ? html`<p class="hint">The delivery log is off (push.deliveryLog.enabled): a push's page still answers "why didn't this device get it?" with the rules.</p>`
    : html`${table(
        `${historyFrom === '' ? 'Latest' : 'Older'} outcomes of this device, newest first (the delivery log)`,
        ['When (UTC)', 'Push', 'Gateway', 'Outcome', 'Reason', 'Attempts'],
        history.entries.map(
          (entry) =>
            html`<tr><td>${entry.at ?? '–'}</td><td><a href="${appPath(appId, `/pushes/${entry.push}?device=${String(device.objectId)}`)}#why"><code>${entry.push}</code></a></td><td>${entry.gateway}</td><td>${entry.outcome}</td><td>${entry.reason === '' ? '–' : entry.reason}</td><td class="num">${entry.attempts}</td></tr>`,
        ),
        {
          numeric: [5],
          empty: historyFrom === '' ? "The delivery log has no entry of this device within its retention (a delivered device is kept as the app's successes policy says)." : 'No older outcome.',
        },
      )}
<nav class="pager" aria-label="Pages of outcomes">
${historyFrom === '' ? null : html`<a href="${devicePath({})}#history">Latest outcomes</a>`}
${history.next === null ? null : html`<a href="${devicePath({ history: history.next })}#history" rel="next">Older outcomes</a>`}
</nav>`
}
${
  mayDelete
    ? html`<h2>Delete</h2><form method="post" action="${appPath(appId, `/devices/${String(device.objectId)}/delete`)}">${csrfField(csrf)}<p class="hint">The device gets no more pushes until its app saves the installation again.</p><button type="submit" class="danger">Delete this installation</button></form>`
    : null
}`;
}
