import { setOwn } from '../../../../query/field-path.ts';
import type { MakerContent } from '../../../payload/maker-content.ts';

/** What a profile decides of its messages. */
export interface VivoMessageSettings {
  appId: string;
  classification: number;
  category?: string | undefined;
  notifyType: number;
  skipType: number;
  skipContent?: string | undefined;
  pushMode: number;
  defaultTitle?: string | undefined;
}

/** Longest title and content in vivo's units: a CJK character counts two, any other one. */
export const maxVivoTitleWidth = 40;
export const maxVivoContentWidth = 100;

/** vivo's bounds on `clientCustomMap`: ten pairs, 1024 characters of keys and values in all. */
export const maxVivoCustomPairs = 10;
export const maxVivoCustomLength = 1024;

/** vivo's bounds on `timeToLive`: at least 60 s for a single send, 900 s for a list send, at most 7 days. */
export const minVivoSingleTtlSeconds = 60;
export const minVivoListTtlSeconds = 900;
export const maxVivoTtlSeconds = 7 * 24 * 3600;

/**
 * Keys of `data.vivo` that are vivo request fields, not data for the app
 * (laid over what Herald builds): `pushMode` (the hosted service's own
 * example), `classification`, `category`, `notifyType`, `skipType`,
 * `skipContent`, `networkType`, `notifyId`, `foregroundShow`, `extra` and
 * `timeToLive`. `title` and `alert` in `data.vivo` set the title and
 * content, as for every maker.
 */
export const vivoOverrideFields: ReadonlySet<string> = new Set([
  'pushMode',
  'classification',
  'category',
  'notifyType',
  'skipType',
  'skipContent',
  'networkType',
  'notifyId',
  'foregroundShow',
  'extra',
  'timeToLive',
]);

/** One push's vivo message for one profile, without its regIds, requestId and TTL. */
export interface VivoMessage {
  /** The fields of `/message/send` and `/message/saveListPayload`, `appId` first. */
  readonly fields: Readonly<Record<string, unknown>>;
  /** `pushMode`, which `/message/pushToList` carries again. */
  readonly pushMode: unknown;
  /** Whether the custom keys are over vivo's bounds on `clientCustomMap`: the message is not sent. */
  readonly tooLarge: boolean;
}

/**
 * Maps a push to a vivo notification (vivo cannot pass a silent message
 * through, so a silent push never gets here):
 *
 * - `title`: the push's, else the profile's `defaultTitle`, else the alert;
 *   `content`: the alert; each cut to vivo's limits (40 and 100 units, a CJK
 *   character two), the last one an ellipsis, rather than refused;
 * - `notifyType`, `skipType` (1, open the app, by default) and
 *   `skipContent`, `classification` (0, operational, by default),
 *   `category` and `pushMode` from the profile; `appId`, which vivo checks
 *   against the authToken's;
 * - `clientCustomMap`: the custom keys, strings as they are and other
 *   values as JSON (vivo takes strings only), which the app reads as the
 *   notification's extras;
 * - then the push's `data.vivo` fields over all of it.
 */
export function buildVivoMessage(content: MakerContent, settings: VivoMessageSettings): VivoMessage {
  const fields: Record<string, unknown> = {
    appId: Number(settings.appId),
    notifyType: settings.notifyType,
    title: cutWidth(content.title ?? settings.defaultTitle ?? content.alert, maxVivoTitleWidth),
    content: cutWidth(content.alert, maxVivoContentWidth),
    skipType: settings.skipType,
  };
  if (settings.skipContent !== undefined) fields.skipContent = settings.skipContent;
  fields.classification = settings.classification;
  if (settings.category !== undefined) fields.category = settings.category;
  const custom = customMap(content.custom);
  if (custom !== undefined) fields.clientCustomMap = custom;
  fields.pushMode = settings.pushMode;
  for (const [key, value] of Object.entries(content.fields)) setOwn(fields, key, value);
  return { fields, pushMode: fields.pushMode, tooLarge: custom !== undefined && !withinCustomBounds(custom) };
}

/** The body of `/message/send` for one regId. */
export function vivoSendBody(built: VivoMessage, regId: string, requestId: string, ttlSeconds: number | null): string {
  return JSON.stringify({ ...built.fields, ...ttlOf(built, ttlSeconds, minVivoSingleTtlSeconds), regId, requestId });
}

/** The body of `/message/saveListPayload`: the message without regIds. */
export function vivoSaveListBody(built: VivoMessage, requestId: string, ttlSeconds: number | null): string {
  return JSON.stringify({ ...built.fields, ...ttlOf(built, ttlSeconds, minVivoListTtlSeconds), requestId });
}

/** The body of `/message/pushToList`: the saved message's taskId and 2 to 1000 regIds. */
export function vivoPushToListBody(built: VivoMessage, regIds: readonly string[], taskId: string, requestId: string): string {
  return JSON.stringify({ appId: built.fields.appId, regIds, taskId, requestId, pushMode: built.pushMode });
}

/**
 * `text` cut to `max` of vivo's units (a CJK character two, any other
 * character, an emoji too, one), the last an ellipsis when cut.
 */
export function cutWidth(text: string, max: number): string {
  let width = 0;
  for (const character of text) width += characterWidth(character);
  if (width <= max) return text;
  let kept = '';
  width = 0;
  for (const character of text) {
    const next = characterWidth(character);
    if (width + next > max - 1) break;
    kept += character;
    width += next;
  }
  return `${kept}…`;
}

/** Two for the CJK blocks (radicals to ideographs, Hangul, compatibility ideographs and forms, full-width forms), one for the rest. */
function characterWidth(character: string): number {
  const point = character.codePointAt(0) ?? 0;
  const wide =
    (point >= 0x2e80 && point <= 0x9fff) ||
    (point >= 0xac00 && point <= 0xd7af) ||
    (point >= 0xf900 && point <= 0xfaff) ||
    (point >= 0xfe30 && point <= 0xfe4f) ||
    (point >= 0xff00 && point <= 0xffef) ||
    (point >= 0x20000 && point <= 0x3ffff);
  return wide ? 2 : 1;
}

/** `timeToLive` from the seconds left, within vivo's bounds, unless `data.vivo` set one; nothing without an expiry (vivo's default, a day). */
function ttlOf(built: VivoMessage, ttlSeconds: number | null, min: number): { timeToLive?: number } {
  if (ttlSeconds === null || Object.hasOwn(built.fields, 'timeToLive')) return {};
  return { timeToLive: Math.min(maxVivoTtlSeconds, Math.max(min, Math.floor(ttlSeconds))) };
}

function customMap(custom: Readonly<Record<string, unknown>>): Record<string, string> | undefined {
  const entries = Object.entries(custom);
  if (entries.length === 0) return undefined;
  const map: Record<string, string> = {};
  for (const [key, value] of entries) setOwn(map, key, typeof value === 'string' ? value : JSON.stringify(value));
  return map;
}

function withinCustomBounds(map: Readonly<Record<string, string>>): boolean {
  const entries = Object.entries(map);
  if (entries.length > maxVivoCustomPairs) return false;
  let length = 0;
  for (const [key, value] of entries) length += key.length + value.length;
  return length <= maxVivoCustomLength;
}
