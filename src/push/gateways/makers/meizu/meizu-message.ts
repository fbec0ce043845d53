import { setOwn } from '../../../../query/field-path.ts';
import { isJsonObject } from '../../../../query/json-value.ts';
import type { MakerContent } from '../../../payload/maker-content.ts';
import { deepMerge } from '../shared/deep-merge.ts';

/** What a profile decides of its messages. */
export interface MeizuMessageSettings {
  defaultTitle?: string | undefined;
  noticeMsgType: 0 | 1;
}

/** Meizu's bounds of a notification: title 1–32 characters, content 1–100 (Java characters, UTF-16 units). */
export const maxMeizuTitleLength = 32;
export const maxMeizuContentLength = 100;
/** `pushTimeInfo.validTime`: whole hours from 1 to 72; Meizu's default 24. */
export const maxMeizuValidHours = 72;
export const defaultMeizuValidHours = 24;

/**
 * Keys of `data.mz` that are Meizu request fields, not data for the app:
 * `noticeMsgType`, `noticeBarType` (into `noticeBarInfo`), `clickType`,
 * `url`, `activity` (into `clickTypeInfo`), `notifyKey` (into
 * `advanceInfo`), `validTime` (into `pushTimeInfo`), `extra` (the receipt
 * settings), and `message` laid deep over the whole `messageJson`.
 */
export const meizuOverrideFields: ReadonlySet<string> = new Set([
  'noticeMsgType',
  'noticeBarType',
  'clickType',
  'url',
  'activity',
  'notifyKey',
  'validTime',
  'extra',
  'message',
]);

const placeOf: Readonly<Record<string, string>> = {
  noticeMsgType: 'noticeBarInfo',
  noticeBarType: 'noticeBarInfo',
  clickType: 'clickTypeInfo',
  url: 'clickTypeInfo',
  activity: 'clickTypeInfo',
  notifyKey: 'advanceInfo',
  validTime: 'pushTimeInfo',
};

/** One push's Meizu `messageJson` for one profile, without its validity (it varies per request). */
export interface MeizuMessage {
  readonly json: Readonly<Record<string, unknown>>;
  /** Whether `data.mz` set `validTime` itself. */
  readonly validTimeGiven: boolean;
}

/**
 * Maps a push to the `messageJson` of Meizu's notification send
 * (`varnished/pushByPushId`); Meizu takes notifications only (its
 * pass-through API is restricted since 2018, and the hosted service did not
 * use it), so a silent push never gets here:
 *
 * - `noticeBarInfo`: `title` (the push's, else the profile's
 *   `defaultTitle`, else the alert) and `content` (the alert), each cut to
 *   Meizu's 32 and 100 characters rather than refused; the profile's
 *   `noticeMsgType`;
 * - `clickTypeInfo`: `clickType` 0 (open the app) with `parameters`, the
 *   custom keys, which the hosted service's SDK reads on the click
 *   (`getSelfDefineContentString`);
 * - `pushTimeInfo`: `offLine` 1, kept while the push lives (`validTime`,
 *   added per request);
 * - then the push's `data.mz` fields where Meizu documents them.
 */
export function buildMeizuMessage(content: MakerContent, settings: MeizuMessageSettings): MeizuMessage {
  let json: Record<string, unknown> = {
    noticeBarInfo: {
      noticeMsgType: settings.noticeMsgType,
      title: cutChars(content.title ?? settings.defaultTitle ?? content.alert, maxMeizuTitleLength),
      content: cutChars(content.alert, maxMeizuContentLength),
    },
    clickTypeInfo: { clickType: 0, parameters: content.custom },
    pushTimeInfo: { offLine: 1 },
  };
  const { fields } = content;
  for (const [key, place] of Object.entries(placeOf)) {
    if (!Object.hasOwn(fields, key)) continue;
    const part = isJsonObject(json[place]) ? json[place] : {};
    setOwn(part, key, fields[key]);
    json[place] = part;
  }
  if (isJsonObject(fields.extra)) json.extra = fields.extra;
  if (isJsonObject(fields.message)) json = deepMerge(json, fields.message);
  const pushTime = json.pushTimeInfo;
  return { json, validTimeGiven: isJsonObject(pushTime) && Object.hasOwn(pushTime, 'validTime') };
}

/** The `messageJson` text of one request: the message with its validity from the seconds left (whole hours rounded up, 1 to 72; 24 without expiry). */
export function meizuMessageJson(built: MeizuMessage, ttlSeconds: number | null): string {
  if (built.validTimeGiven) return JSON.stringify(built.json);
  const pushTime = isJsonObject(built.json.pushTimeInfo) ? built.json.pushTimeInfo : {};
  return JSON.stringify({ ...built.json, pushTimeInfo: { ...pushTime, validTime: validHours(ttlSeconds) } });
}

function validHours(ttlSeconds: number | null): number {
  if (ttlSeconds === null) return defaultMeizuValidHours;
  return Math.min(maxMeizuValidHours, Math.max(1, Math.ceil(ttlSeconds / 3600)));
}

/** `text` cut to `max` UTF-16 units without splitting a surrogate pair. */
export function cutChars(text: string, max: number): string {
  if (text.length <= max) return text;
  const last = text.charCodeAt(max - 1);
  return text.slice(0, last >= 0xd800 && last <= 0xdbff ? max - 1 : max);
}
