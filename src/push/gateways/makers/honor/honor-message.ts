import { setOwn } from '../../../../query/field-path.ts';
import { isJsonObject } from '../../../../query/json-value.ts';
import type { MakerContent } from '../../../payload/maker-content.ts';
import { clickIntent } from '../shared/click-intent.ts';
import { deepMerge } from '../shared/deep-merge.ts';

/** What a profile decides of its messages. */
export interface HonorMessageSettings {
  /** Host of the click intent the hosted service's SDK listens on. */
  intentHost: string;
  defaultTitle?: string | undefined;
  /** `android.notification.importance`, when the profile has one. */
  importance?: string | undefined;
}

/** Longest message Herald sends to Honor, tokens aside: HMS's 4096 bytes (Honor publishes no figure; the hosted service held these makers to 4096). */
export const maxHonorMessageBytes = 4096;

/** Longest TTL Honor keeps a message: 15 days (`android.ttl`, "最大值为1296000s"). */
export const maxHonorTtlSeconds = 15 * 24 * 3600;

/**
 * Keys of `data.honor` that are Honor request fields, not data for the app:
 * `message` (laid deep over the body Herald builds, `token` aside; not
 * `android`, which is a platform key of `data`), and the flat ones the
 * hosted service's docs show under `honor` (`targetUserType`) and their
 * siblings: `targetUserType`, `biTag`, `ttl` (into `android`) and
 * `importance` (into `android.notification`).
 */
export const honorOverrideFields: ReadonlySet<string> = new Set(['message', 'targetUserType', 'biTag', 'ttl', 'importance']);

const androidFields = ['targetUserType', 'biTag', 'ttl'] as const;

/** One push's Honor message for one profile, without its tokens and TTL (they vary per request). */
export interface HonorMessage {
  /** The body without `token`, its `android` apart. */
  readonly message: Readonly<Record<string, unknown>>;
  readonly android: Readonly<Record<string, unknown>>;
  /** The message's JSON size, tokens aside, held against `maxHonorMessageBytes`. */
  readonly bytes: number;
}

/**
 * Maps a push to Honor Push's `sendMessage` body (the same shape as HMS's
 * message, camelCase, at the top level):
 *
 * - `data` (the push's data for Honor devices, as JSON): what the hosted
 *   service's SDK reads (`msg.getData()`), in every message;
 * - a notification (not silent): `android.notification` with `title` (the
 *   push's, else the profile's `defaultTitle`, else the alert), `body` (the
 *   alert), the profile's `importance`, and the click action Honor requires
 *   on Android notifications: `{type: 1, intent}` with the same lcpushscheme
 *   intent as HMS;
 * - a silent push: `data` alone, a pass-through message;
 * - then the push's `data.honor` fields over all of it; only Herald sets
 *   `token`.
 */
export function buildHonorMessage(content: MakerContent, settings: HonorMessageSettings): HonorMessage {
  const android: Record<string, unknown> = {};
  if (!content.silent) {
    const notification: Record<string, unknown> = {
      title: content.title ?? settings.defaultTitle ?? content.alert,
      body: content.alert,
      clickAction: { type: 1, intent: clickIntent(settings.intentHost, content.custom) },
    };
    if (settings.importance !== undefined) notification.importance = settings.importance;
    android.notification = notification;
  }
  const { fields } = content;
  for (const key of androidFields) if (Object.hasOwn(fields, key)) setOwn(android, key, fields[key]);
  if (Object.hasOwn(fields, 'importance') && isJsonObject(android.notification)) android.notification.importance = fields.importance;
  let message: Record<string, unknown> = { data: JSON.stringify(content.data), android };
  if (isJsonObject(fields.message)) {
    const { token: _addressing, ...given } = fields.message;
    message = deepMerge(message, given);
  }
  const { android: merged, ...rest } = message;
  const androidPart = isJsonObject(merged) ? merged : {};
  return { message: rest, android: androidPart, bytes: Buffer.byteLength(JSON.stringify({ ...rest, android: androidPart })) };
}

/** The send body for `tokens`: the message, its TTL (unless `data.honor` set one) and the tokens. */
export function honorSendBody(built: HonorMessage, tokens: readonly string[], ttlSeconds: number | null): string {
  const android = ttlSeconds === null || Object.hasOwn(built.android, 'ttl') ? built.android : { ...built.android, ttl: `${honorTtl(ttlSeconds)}s` };
  // A pass-through message without request fields has no android part, as Honor's example shows it.
  return JSON.stringify(Object.keys(android).length === 0 ? { ...built.message, token: tokens } : { ...built.message, android, token: tokens });
}

/** Whole seconds from 1 to 15 days. */
function honorTtl(seconds: number): number {
  return Math.min(maxHonorTtlSeconds, Math.max(1, Math.floor(seconds)));
}
