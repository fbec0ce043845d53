import { setOwn } from '../../../../query/field-path.ts';
import { isJsonObject } from '../../../../query/json-value.ts';
import type { MakerContent } from '../../../payload/maker-content.ts';
import { clickIntent } from '../shared/click-intent.ts';
import { deepMerge } from '../shared/deep-merge.ts';

/** What a profile decides of its messages. */
export interface HmsMessageSettings {
  /** Host of the click intent the hosted service's SDK listens on. */
  intentHost: string;
  defaultTitle?: string | undefined;
  /** `android.category`, when the profile has one. */
  category?: string | undefined;
}

/** Longest message HMS takes (code 80300008), tokens aside. */
export const maxHmsMessageBytes = 4096;

/** Longest TTL HMS keeps a message: 15 days. */
export const maxHmsTtlSeconds = 15 * 24 * 3600;

/**
 * Keys of `data.hms` that are HMS request fields, not data for the app:
 * `message` (laid deep over the message Herald builds), and the fields the
 * hosted service read flat under `hms`: `target_user_type`, `category`,
 * `urgency`, `ttl`, `collapse_key`, `bi_tag`, `receipt_id` (into
 * `message.android`) and `importance` (into `message.android.notification`).
 */
export const hmsOverrideFields: ReadonlySet<string> = new Set([
  'message',
  'target_user_type',
  'category',
  'urgency',
  'ttl',
  'collapse_key',
  'bi_tag',
  'receipt_id',
  'importance',
]);

const androidFields = ['target_user_type', 'category', 'urgency', 'ttl', 'collapse_key', 'bi_tag', 'receipt_id'] as const;

/** Keys of `message` that choose whom it goes to: Herald's alone, never taken from `data.hms.message`. */
const addressingKeys: ReadonlySet<string> = new Set(['token', 'topic', 'condition']);

/** One push's HMS message for one profile, without its tokens and TTL (they vary per request). */
export interface HmsMessage {
  /** `message` without `token`, its `android` apart. */
  readonly message: Readonly<Record<string, unknown>>;
  readonly android: Readonly<Record<string, unknown>>;
  /** The size HMS holds against its 4096 bytes: the message's JSON, tokens aside. */
  readonly bytes: number;
}

/**
 * Maps a push to Huawei Push Kit's `message` (HMS API v1):
 *
 * - `data` (the push's data for HMS devices, as JSON): what the hosted
 *   service's SDK reads, in every message;
 * - a notification (not silent): `android.notification` with `title` (the
 *   push's, else the profile's `defaultTitle`, else the alert), `body` (the
 *   alert), `channel_id` (the push's notification channel), and the click
 *   action HMS requires: the intent
 *   `intent://<intentHost>/notify_detail#Intent;scheme=lcpushscheme;S.content=<custom keys as URL-encoded JSON>;launchFlags=0x10000000;end`
 *   that the hosted service's SDK opens;
 * - a silent push: `data` alone, a pass-through message;
 * - the profile's `category`; then the push's `data.hms` fields over all of it.
 */
export function buildHmsMessage(content: MakerContent, settings: HmsMessageSettings): HmsMessage {
  const android: Record<string, unknown> = {};
  if (settings.category !== undefined) android.category = settings.category;
  if (!content.silent) {
    const notification: Record<string, unknown> = {
      title: content.title ?? settings.defaultTitle ?? content.alert,
      body: content.alert,
      click_action: { type: 1, intent: clickIntent(settings.intentHost, content.custom) },
    };
    if (content.channel !== null) notification.channel_id = content.channel;
    android.notification = notification;
  }
  const { fields } = content;
  for (const key of androidFields) if (Object.hasOwn(fields, key)) setOwn(android, key, fields[key]);
  if (Object.hasOwn(fields, 'importance') && isJsonObject(android.notification)) android.notification.importance = fields.importance;
  let message: Record<string, unknown> = { data: JSON.stringify(content.data), android };
  if (isJsonObject(fields.message)) {
    const given: Record<string, unknown> = {};
    for (const [key, value] of Object.entries(fields.message)) if (!addressingKeys.has(key)) setOwn(given, key, value);
    message = deepMerge(message, given);
  }
  const { android: merged, ...rest } = message;
  const androidPart = isJsonObject(merged) ? merged : {};
  return { message: rest, android: androidPart, bytes: Buffer.byteLength(JSON.stringify({ ...rest, android: androidPart })) };
}

/** The send body for `tokens`: the message, its TTL (unless `data.hms` set one) and the tokens. */
export function hmsSendBody(built: HmsMessage, tokens: readonly string[], ttlSeconds: number | null): string {
  const android = ttlSeconds === null || Object.hasOwn(built.android, 'ttl') ? built.android : { ...built.android, ttl: `${hmsTtl(ttlSeconds)}s` };
  return JSON.stringify({ validate_only: false, message: { ...built.message, android, token: tokens } });
}

/** Whole seconds from 1 to 15 days. */
function hmsTtl(seconds: number): number {
  return Math.min(maxHmsTtlSeconds, Math.max(1, Math.floor(seconds)));
}
