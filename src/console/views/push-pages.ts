import { html, type SafeHtml } from '../../accounts/emails/html.ts';
import type { ScheduledPushView } from '../../push/records/scheduled-messages.ts';
import type { DeviceExplanation, FailureReport } from '../insight/delivery-insight.ts';
import { appPath, csrfField, facts, table, textOf } from './layout.ts';
import { percent, rateBar } from './overview-pages.ts';

type Json = Readonly<Record<string, unknown>>;

export interface PushFilters {
  status: string;
  from: string;
  to: string;
  q: string;
  page: number;
}

export const pushStatuses = ['scheduled', 'in-queue', 'done', 'Error'] as const;

/** The words a push would show: its alert, from the base or a platform layer. */
export function alertOf(data: unknown): string {
  const record = (data ?? {}) as Record<string, unknown>;
  for (const source of [record, record.ios, record.android] as unknown[]) {
    const alert = (source as Record<string, unknown> | undefined)?.alert;
    if (typeof alert === 'string') return alert;
    if (alert !== null && typeof alert === 'object' && typeof (alert as Record<string, unknown>).body === 'string') return String((alert as Record<string, unknown>).body);
  }
  return record.silent === true || (record.android as Record<string, unknown> | undefined)?.silent === true ? '(silent)' : '';
}

/** Who a push is for, in a few words. */
export function audienceOf(push: Json): string {
  if (Array.isArray(push.device_ids)) return `${push.device_ids.length} ${String(push.device_type)} device${push.device_ids.length === 1 ? '' : 's'}`;
  const where = push.where as Record<string, unknown> | null | undefined;
  if (where === null || where === undefined) return 'every device';
  const channels = (where.channels as Record<string, unknown> | undefined)?.$in;
  if (Array.isArray(channels) && Object.keys(where).length === 1) return `channels ${channels.join(', ')}`;
  return JSON.stringify(where);
}

function statusBadge(status: unknown, live = false): SafeHtml {
  const text = typeof status === 'string' ? status : 'unknown';
  return html`<span class="status ${text}"${live ? html` data-push-status` : null}>${text}</span>`;
}

/** The filter form and one page of push records. */
export function renderPushList(appId: string, filters: PushFilters, pushes: Json[], more: boolean): SafeHtml {
  const link = (page: number) => appPath(appId, `/pushes?${new URLSearchParams({ status: filters.status, from: filters.from, to: filters.to, q: filters.q, page: String(page) }).toString()}`);
  return html`<form class="inline" method="get" action="${appPath(appId, '/pushes')}" role="search">
<div class="field"><label for="status">Status</label><select id="status" name="status"><option value="">Any</option>${pushStatuses.map((status) => html`<option value="${status}"${filters.status === status ? html` selected` : null}>${status}</option>`)}</select></div>
<div class="field"><label for="from">From (UTC)</label><input id="from" name="from" type="date" value="${filters.from}"></div>
<div class="field"><label for="to">To (UTC)</label><input id="to" name="to" type="date" value="${filters.to}"></div>
<div class="field"><label for="q">Id or text</label><input id="q" name="q" value="${filters.q}" maxlength="200"></div>
<button type="submit">Filter</button>
</form>
${table(
  'Push records, newest first',
  ['Created (UTC)', 'Status', 'Audience', 'Alert', 'Devices', 'Delivered', 'Failed', 'Success'],
  pushes.map((push) => {
    const devices = Number(push.devices ?? 0);
    const successes = Number(push.successes ?? 0);
    return html`<tr><td><a href="${appPath(appId, `/pushes/${String(push.objectId)}`)}">${String(push.createdAt)}</a></td><td>${statusBadge(push.status)}</td><td>${audienceOf(push)}</td><td>${alertOf(push.data)}</td><td class="num">${devices}</td><td class="num">${successes}</td><td class="num">${Number(push.errors ?? 0)}</td><td>${percent(successes, devices)} ${rateBar(successes, devices)}</td></tr>`;
  }),
  { numeric: [4, 5, 6], empty: 'No push matches.' },
)}
<nav class="pager" aria-label="Pages">
${filters.page > 1 ? html`<a href="${link(filters.page - 1)}" rel="prev">Newer</a>` : null}
${more ? html`<a href="${link(filters.page + 1)}" rel="next">Older</a>` : null}
</nav>`;
}

const counterNames: [string, string][] = [
  ['devices', 'Devices'],
  ['successes', 'Delivered'],
  ['errors', 'Failed'],
  ['invalidTokens', 'Invalid tokens'],
  ['iosSuccesses', 'iOS delivered'],
  ['androidSuccesses', 'Android delivered'],
];

export const finalStatuses: ReadonlySet<unknown> = new Set(['done', 'Error']);

export interface PushPageParts {
  appId: string;
  push: Json;
  failures: FailureReport;
  /** The cursor this page of failures started at; empty for the first page. */
  failuresFrom: string;
  device: string;
  explanation: DeviceExplanation | null | undefined;
}

/** A push's page: its progress (live while it runs), counters, reasons, failures and the why-form. */
export function renderPushPage({ appId, push, failures, failuresFrom, device, explanation }: PushPageParts): SafeHtml {
  const id = String(push.objectId);
  const reasons = Object.entries((push.errorReasons ?? {}) as Record<string, number>).sort((a, b) => b[1] - a[1]);
  const running = !finalStatuses.has(push.status);
  return html`${facts([
    ['Status', statusBadge(push.status, true)],
    ['Push id', html`<code>${id}</code>`],
    ['Notification id', html`<code>${textOf(push.notificationId, '')}</code>`],
    ['Created (UTC)', String(push.createdAt)],
    ['Audience', audienceOf(push)],
    ['Environment', textOf(push.prod, 'prod')],
    ['Send at', textOf(push.push_time, 'at once')],
    ['Expires', textOf(push.expiration_time, 'never')],
    ['Message', html`<span data-error-message>${typeof push.errorMessage === 'string' ? push.errorMessage : '–'}</span>`],
  ])}
${running ? html`<p class="muted" data-live-url="${appPath(appId, `/pushes/${id}/events`)}" aria-live="polite">Still running: reload the page for the latest counts.</p>` : null}
<h2>Counters</h2>
<dl class="counters">${counterNames.map(([name, label]) => html`<div><dt>${label}</dt><dd data-count="${name}">${Number(push[name] ?? 0)}</dd></div>`)}</dl>
<h2>Reasons</h2>
<div class="table-wrap" role="region" aria-label="Reasons" tabindex="0"><table data-reasons>
<caption>Devices not delivered, by reason</caption>
<thead><tr><th scope="col">Reason</th><th scope="col" class="num">Devices</th></tr></thead>
<tbody>${reasons.map(([reason, count]) => html`<tr><td>${reason}</td><td class="num">${count}</td></tr>`)}</tbody>
</table></div>
<h2 id="failures">Failures</h2>
${renderFailures(appId, id, failures, failuresFrom)}
<h2 id="why">Why didn't this device get it?</h2>
<form class="inline" method="get" action="${appPath(appId, `/pushes/${id}`)}#why">
<div class="field"><label for="device">Device token, registrationId, installationId or installation objectId</label><input id="device" name="device" value="${device}" required maxlength="4096"></div>
<button type="submit">Explain</button>
</form>
${explanation === undefined ? null : renderExplanation(appId, explanation)}
<h2>Data</h2>
<pre>${JSON.stringify(push.data ?? {}, null, 2)}</pre>`;
}

function renderFailures(appId: string, pushId: string, report: FailureReport, from: string): SafeHtml {
  const pushPath = (query: Record<string, string>) => appPath(appId, `/pushes/${pushId}?${new URLSearchParams(query).toString()}`);
  if (report.perDevice) {
    return html`<p class="hint">Each device not delivered, from ${report.source}${from === '' ? '' : ' (a later page)'}.</p>
${table(
  'Devices not delivered',
  ['Installation', 'Gateway', 'Outcome', 'Reason', 'Attempts', 'When (UTC)', 'Explain'],
  report.entries.map(
    (entry) =>
      html`<tr><td>${entry.installation === null ? html`token <code>…${entry.tokenSuffix ?? ''}</code>` : html`<a href="${appPath(appId, `/devices/${entry.installation}`)}"><code>${entry.installation}</code></a>`}</td><td>${entry.gateway}</td><td>${entry.outcome}</td><td>${entry.reason}</td><td class="num">${entry.attempts}</td><td>${entry.at ?? '–'}</td><td>${
        entry.installation === null ? null : html`<a href="${pushPath({ ...(from === '' ? {} : { failures: from }), device: entry.installation })}#why" aria-label="Why was ${entry.installation} not delivered?">Why?</a>`
      }</td></tr>`,
  ),
  { numeric: [4], empty: from === '' ? 'No device failed.' : 'No more failed devices.' },
)}
<nav class="pager" aria-label="Pages of failures">
${from === '' ? null : html`<a href="${pushPath({})}#failures">First failures</a>`}
${report.next === null ? null : html`<a href="${pushPath({ failures: report.next })}#failures" rel="next">More failures</a>`}
</nav>`;
  }
  return html`<p class="hint">From ${report.source}.</p>
${table('Failures by reason', ['Reason', 'Devices'], report.byReason.map((entry) => html`<tr><td>${entry.reason}</td><td class="num">${entry.count}</td></tr>`), { numeric: [1], empty: 'No device failed.' })}`;
}

function renderExplanation(appId: string, explanation: DeviceExplanation | null): SafeHtml {
  if (explanation === null) return html`<p class="error" role="alert">This push is not known.</p>`;
  const mark = (passed: boolean | null) => (passed === true ? html`<span class="ok">passes</span>` : passed === false ? html`<span class="bad">stops it</span>` : html`<span class="unknown">cannot tell</span>`);
  return html`<div class="panel" role="region" aria-label="Explanation">
<p><strong>${explanation.verdict}</strong></p>
${explanation.installation === null ? html`<p class="muted">No installation holds this id.</p>` : html`<p>Installation <a href="${appPath(appId, `/devices/${explanation.installation.objectId}`)}"><code>${explanation.installation.objectId}</code></a> (${explanation.installation.deviceType}, saved ${explanation.installation.updatedAt}).</p>`}
${table('The rules of this push for this device, in the order they apply', ['Rule', 'Result', 'Detail'], explanation.checks.map((check) => html`<tr><td>${check.rule}</td><td>${mark(check.passed)}</td><td>${check.detail}</td></tr>`))}
${explanation.log === null ? null : table("The delivery log's entries of this device for this push", ['Gateway', 'Outcome', 'Reason', 'Attempts', 'When (UTC)'], explanation.log.map((entry) => html`<tr><td>${entry.gateway}</td><td>${entry.outcome}</td><td>${entry.reason === '' ? '–' : entry.reason}</td><td class="num">${entry.attempts}</td><td>${entry.at ?? '–'}</td></tr>`), { numeric: [3], empty: 'The delivery log has no entry for this device.' })}
</div>`;
}

/** The app's waiting pushes, with a cancel button for those who may. */
export function renderScheduled(appId: string, entries: ScheduledPushView[], csrf: string, mayCancel: boolean): SafeHtml {
  return table(
    'Pushes waiting for their time, soonest first',
    ['Send at (UTC)', 'Scheduled (UTC)', 'Audience', 'Alert', ''],
    entries.map(
      (entry) =>
        html`<tr><td><a href="${appPath(appId, `/pushes/${String(entry.push_msg.id)}`)}">${new Date(entry.expire_time).toISOString()}</a></td><td>${entry.createdAt}</td><td>${audienceOf(entry.push_msg)}</td><td>${alertOf(entry.push_msg.msg)}</td><td>${
          mayCancel
            ? html`<form method="post" action="${appPath(appId, `/scheduled/${entry.id}/cancel`)}">${csrfField(csrf)}<button type="submit" class="danger" aria-label="Cancel the push of ${new Date(entry.expire_time).toISOString()}">Cancel</button></form>`
            : null
        }</td></tr>`,
    ),
    { empty: 'No push is waiting.' },
  );
}
