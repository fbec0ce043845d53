import { randomInt } from 'node:crypto';
import { isJsonObject } from '../../../../query/json-value.ts';
import type { MakerContent } from '../../../payload/maker-content.ts';

/** What a profile decides of its messages. */
export interface XiaomiMessageSettings {
  /** `restricted_package_name`: the app the regIds belong to. */
  packageName: string;
  /** `extra.channel_id` when the push names no channel. */
  channelId?: string | undefined;
  defaultTitle?: string | undefined;
  /** `notify_type` of notifications (-1: sound, vibration and lights). */
  notifyType: number;
}

/** Longest `payload` Xiaomi carries: 4 KB (code 65009 beyond). */
export const maxXiaomiPayloadBytes = 4096;

/** Most characters of a title: Xiaomi takes fewer than 50, each Chinese or Latin character counting 1. */
export const maxXiaomiTitleLength = 49;

/** Most characters of a description: fewer than 128. */
export const maxXiaomiDescriptionLength = 127;

/** Longest time Xiaomi keeps a message for an offline device: two weeks. */
export const maxXiaomiTtlMs = 14 * 24 * 3600 * 1000;

/**
 * Keys of `data.mi` that are Mi Push request fields, not data for the app:
 * `notify_type`, `notify_id` and `time_to_live` as they are; `channel_id`,
 * `notify_effect`, `intent_uri` and `web_uri` as `extra.<key>`; and `extra`,
 * an object whose every key is sent as `extra.<key>` (`notify_foreground`,
 * `jobkey`, `callback`, …).
 */
export const xiaomiOverrideFields: ReadonlySet<string> = new Set(['notify_type', 'notify_id', 'time_to_live', 'channel_id', 'notify_effect', 'intent_uri', 'web_uri', 'extra']);

const plainFields = ['notify_type', 'notify_id', 'time_to_live'] as const;
const extraFields = ['channel_id', 'notify_effect', 'intent_uri', 'web_uri'] as const;

/** One push's Mi Push message for one profile, without its regIds and TTL (they vary per request). */
export interface XiaomiMessage {
  /** The form fields, in order, `registration_id` and (unless `data.mi` set it) `time_to_live` aside. */
  readonly fields: ReadonlyMap<string, string>;
  /** `fields` form-encoded, built once. */
  readonly form: string;
  /** The size Herald holds against Xiaomi's 4 KB: the payload's UTF-8 bytes. */
  readonly payloadBytes: number;
}

/**
 * Maps a push to Xiaomi's `/v3/message/regid` form (docs/push-requests.md,
 * "Xiaomi Mi Push"):
 *
 * - `payload`: the push's `data` for Xiaomi devices as JSON, what the hosted
 *   service's SDK reads (`MiPushMessage.getContent()`), in every message;
 * - `restricted_package_name`: the profile's package;
 * - a notification (`pass_through=0`): `title` (the push's, else the
 *   profile's `defaultTitle`, else the alert) and `description` (the alert),
 *   cut to Xiaomi's lengths; `notify_type` of the profile; a `notify_id` of
 *   this push, so that its notification does not replace the previous one;
 *   `extra.notify_effect=1` (open the app, which hands the payload to the
 *   SDK); `extra.channel_id`, the push's notification channel, else the
 *   profile's `channelId`;
 * - a silent push: a pass-through message (`pass_through=1`), the payload alone;
 * - then the push's `data.mi` fields over all of it.
 */
export function buildXiaomiMessage(content: MakerContent, settings: XiaomiMessageSettings, notifyId: number = randomInt(0, 2 ** 31 - 1)): XiaomiMessage {
  const payload = JSON.stringify(content.data);
  const fields = new Map<string, string>([
    ['payload', payload],
    ['restricted_package_name', settings.packageName],
    ['pass_through', content.silent ? '1' : '0'],
  ]);
  if (!content.silent) {
    const title = given(content.title) ?? settings.defaultTitle ?? content.alert;
    fields.set('title', clip(title, maxXiaomiTitleLength));
    fields.set('description', clip(content.alert, maxXiaomiDescriptionLength));
    fields.set('notify_type', String(settings.notifyType));
    fields.set('notify_id', String(notifyId));
    fields.set('extra.notify_effect', '1');
    const channel = content.channel ?? settings.channelId;
    if (channel !== undefined) fields.set('extra.channel_id', channel);
  }
  const overrides = content.fields;
  if (isJsonObject(overrides.extra)) for (const [key, value] of Object.entries(overrides.extra)) fields.set(`extra.${key}`, formValue(value));
  for (const key of extraFields) if (Object.hasOwn(overrides, key)) fields.set(`extra.${key}`, formValue(overrides[key]));
  for (const key of plainFields) if (Object.hasOwn(overrides, key)) fields.set(key, formValue(overrides[key]));
  return { fields, form: new URLSearchParams([...fields]).toString(), payloadBytes: Buffer.byteLength(payload) };
}

/** The send body for `regIds`: the message, its TTL in milliseconds (unless `data.mi` gave one) and the regIds, comma-separated. */
export function xiaomiSendBody(built: XiaomiMessage, regIds: readonly string[], ttlSeconds: number | null): string {
  const tail = new URLSearchParams({ registration_id: regIds.join(',') });
  if (ttlSeconds !== null && !built.fields.has('time_to_live')) tail.set('time_to_live', String(xiaomiTtlMs(ttlSeconds)));
  return `${built.form}&${tail.toString()}`;
}

/** Whole seconds left as milliseconds, from 1 s to two weeks. */
export function xiaomiTtlMs(seconds: number): number {
  return Math.min(maxXiaomiTtlMs, Math.max(1, Math.floor(seconds)) * 1000);
}

/** `text` cut to `max` characters (code points), ending in an ellipsis when cut. */
export function clip(text: string, max: number): string {
  const characters = [...text];
  return characters.length <= max ? text : `${characters.slice(0, max - 1).join('')}…`;
}

/** A title that is there and not blank. */
function given(text: string | undefined): string | undefined {
  return text === undefined || text.trim() === '' ? undefined : text;
}

/** A `data.mi` value as a form field: strings as they are, numbers and booleans as text, anything else as JSON. */
function formValue(value: unknown): string {
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  return JSON.stringify(value) ?? '';
}
