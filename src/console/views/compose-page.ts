import { html, type SafeHtml } from '../../accounts/emails/html.ts';
import type { AudienceCount } from '../compose/audience-count.ts';
import type { ComposeForm } from '../compose/compose-form.ts';
import type { PayloadPreview } from '../compose/payload-preview.ts';
import { makerLabels } from '../compose/maker-previews.ts';
import { makers } from '../../push/gateways/makers/maker-registry.ts';
import { appPath, csrfField, facts } from './layout.ts';

export interface ComposeParts {
  appId: string;
  csrf: string;
  form: ComposeForm;
  preview?: PayloadPreview | undefined;
  audience?: AudienceCount | undefined;
}

function field(id: keyof ComposeForm, label: string, value: string, extra: { hint?: string; type?: string; textarea?: boolean; placeholder?: string } = {}): SafeHtml {
  const hintId = extra.hint === undefined ? undefined : `${id}-hint`;
  const describedBy = hintId === undefined ? null : html` aria-describedby="${hintId}"`;
  const control = extra.textarea
    ? html`<textarea id="${id}" name="${id}" rows="3"${describedBy}${extra.placeholder === undefined ? null : html` placeholder="${extra.placeholder}"`}>${value}</textarea>`
    : html`<input id="${id}" name="${id}" type="${extra.type ?? 'text'}" value="${value}"${describedBy}${extra.placeholder === undefined ? null : html` placeholder="${extra.placeholder}"`}>`;
  return html`<div class="field"><label for="${id}">${label}</label>${control}${hintId === undefined ? null : html`<p class="hint" id="${hintId}">${extra.hint}</p>`}</div>`;
}

function radio(name: string, value: string, label: string, checked: boolean): SafeHtml {
  const id = `${name}-${value}`;
  return html`<label class="choice" for="${id}"><input type="radio" id="${id}" name="${name}" value="${value}"${checked ? html` checked` : null}>${label}</label>`;
}

/** The compose form, with the preview of what Herald will send and the audience size when asked for. */
export function renderCompose({ appId, csrf, form, preview, audience }: ComposeParts): SafeHtml {
  return html`<form class="stack" method="post" action="${appPath(appId, '/compose')}" data-preview-url="${appPath(appId, '/compose')}">
${csrfField(csrf)}
<fieldset class="choices"><legend>Audience</legend>
${radio('target', 'channels', 'Channels', form.target === 'channels')}
${radio('target', 'query', 'Query', form.target === 'query')}
${radio('target', 'devices', 'Device ids', form.target === 'devices')}
</fieldset>
<div class="grid">
${field('channels', 'Channels', form.channels, { hint: 'For Channels: names separated by commas or spaces.' })}
${field('where', 'Query (where)', form.where, { textarea: true, hint: 'For Query: a JSON query over installations, e.g. {"deviceType":"ios"}; empty for every device.' })}
<div class="field"><label for="deviceType">Device type</label><select id="deviceType" name="deviceType" aria-describedby="deviceType-hint"><option value="ios"${form.deviceType === 'ios' ? html` selected` : null}>iOS (device tokens)</option><option value="android"${form.deviceType === 'android' ? html` selected` : null}>Android (installationIds)</option></select><p class="hint" id="deviceType-hint">For Device ids.</p></div>
${field('deviceIds', 'Device ids', form.deviceIds, { textarea: true, hint: 'For Device ids: up to 500, one per line.' })}
</div>
<div class="grid">
<fieldset><legend>iOS content</legend>
${field('iosTitle', 'Title', form.iosTitle)}
${field('iosAlert', 'Alert', form.iosAlert)}
${field('iosBadge', 'Badge', form.iosBadge, { hint: 'A number, or Increment.' })}
${field('iosSound', 'Sound', form.iosSound, { placeholder: 'default' })}
${field('iosExtra', 'More iOS fields (JSON)', form.iosExtra, { textarea: true, hint: 'Laid over the iOS content, e.g. {"category":"news"}.' })}
</fieldset>
<fieldset><legend>Android content</legend>
${field('androidTitle', 'Title', form.androidTitle)}
${field('androidAlert', 'Alert', form.androidAlert)}
<label class="choice" for="androidSilent"><input type="checkbox" id="androidSilent" name="androidSilent"${form.androidSilent ? html` checked` : null}>Silent (data only)</label>
${field('androidChannel', 'Notification channel', form.androidChannel)}
${field('androidExtra', 'More Android fields (JSON)', form.androidExtra, { textarea: true })}
</fieldset>
</div>
${field('data', 'Custom data for both (JSON)', form.data, { textarea: true, hint: 'Keys the app reads, e.g. {"article":"42"}.' })}
<div class="grid">
<fieldset class="choices"><legend>Environment</legend>${radio('prod', 'prod', 'prod', form.prod === 'prod')}${radio('prod', 'dev', 'dev', form.prod === 'dev')}</fieldset>
${field('expirationInterval', 'Expires after (seconds)', form.expirationInterval, { type: 'number' })}
${field('flowControl', 'Flow control (deliveries a second)', form.flowControl, { type: 'number', hint: 'Empty or 0: as fast as the gateways take them; at least 1000.' })}
${field('pushTime', 'Send at (UTC)', form.pushTime, { type: 'datetime-local', hint: 'Empty: at once.' })}
</div>
${field('testDevice', 'Test device', form.testDevice, { hint: 'A device token, installationId or installation objectId: Test send sends this push to that one device only.' })}
<div class="actions">
<button type="submit" name="action" value="preview" class="secondary">Preview</button>
<button type="submit" name="action" value="audience" class="secondary">Count audience</button>
<button type="submit" name="action" value="test" class="secondary">Test send</button>
<button type="submit" name="action" value="send">Send</button>
</div>
</form>
${audience === undefined ? null : renderAudience(audience)}
<h2>What Herald will send</h2>
<p class="bad" role="alert" data-preview-error></p>
<div class="grid">
<div><h3>APNs request</h3><pre data-preview="apns-headers">${preview === undefined ? 'Press Preview.' : preview.apns === null ? '(no iOS device)' : preview.apns.headers.map(([name, value]) => `${name}: ${value}`).join('\n')}</pre>
<pre data-preview="apns-body">${preview?.apns?.body ?? ''}</pre></div>
<div><h3>FCM message</h3><pre data-preview="fcm-body">${preview === undefined ? 'Press Preview.' : (preview.fcm?.body ?? '(no Android device)')}</pre></div>
</div>
<h3>Phone makers' requests</h3>
<p class="hint">What Android devices whose vendor names a phone maker are sent instead of the FCM message, each device's registration id in place of the placeholder.</p>
${makers.map((maker) => {
  const shown = preview?.makers.find((entry) => entry.gateway === maker.gateway);
  const body = preview === undefined ? 'Press Preview.' : shown === undefined ? '(no device of this maker)' : (shown.body ?? '(nothing is sent)');
  return html`<details class="maker-preview" data-maker="${maker.gateway}"${shown?.body === undefined || shown.body === null ? null : html` open`}><summary>${makerLabels[maker.gateway]} <span class="muted">(vendor ${Object.keys(maker.vendors).join(', ')})</span></summary>
<pre data-preview="maker-${maker.gateway}">${body}</pre>
<p class="hint" data-preview-note="${maker.gateway}">${shown === undefined ? '' : `${shown.profile === null ? '' : `Profile ${shown.profile}. `}${shown.note}`}</p>
</details>`;
})}
${preview === undefined || preview.notes.length === 0 ? null : html`<ul class="hint">${preview.notes.map((note) => html`<li>${note}</li>`)}</ul>`}`;
}

function renderAudience(count: AudienceCount): SafeHtml {
  const total = count.ios + count.android;
  return html`<div class="panel" role="status"><h2>Audience</h2>
${facts([
  ['Devices it would reach now', `${count.capped ? 'at least ' : ''}${total}`],
  ['iOS', String(count.ios)],
  ['Android', String(count.android)],
  ...(count.unknown > 0 ? ([['Listed ids no installation holds', String(count.unknown)]] as [string, string][]) : []),
])}</div>`;
}
