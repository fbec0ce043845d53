import { setOwn } from '../../../../query/field-path.ts';
import type { MakerContent } from '../../../payload/maker-content.ts';

/** What a profile decides of its messages. */
export interface OppoMessageSettings {
  /** `channel_id` when the push names no channel. */
  channelId?: string | undefined;
  category?: string | undefined;
  notifyLevel?: number | undefined;
  clickActionType: number;
  clickActionActivity?: string | undefined;
  clickActionUrl?: string | undefined;
  defaultTitle?: string | undefined;
}

/** Longest `action_parameters` OPPO takes, in characters. */
export const maxOppoActionParameters = 4000;

/** Longest time OPPO keeps a message for an offline device: 10 days. */
export const maxOppoTtlSeconds = 10 * 24 * 3600;

/** Longest title, and content of the standard style (style 1), in characters (OPPO counts every character, CJK or emoji, as one). */
export const maxOppoTitleLength = 50;
const maxStandardContentLength = 50;
/** Longest content of the long-text style (style 2). */
const maxLongContentLength = 128;

/**
 * Keys of `data.oppo` that are OPPO request fields, not data for the app:
 * the `notification` fields OPPO documents (snake_case, as its body
 * definition and server SDK write them), laid over what Herald builds, and
 * `verify_registration_id` of the message. `title` and `content` are not
 * among them: `data.oppo.title` and `data.oppo.alert` set them, as for every
 * maker.
 */
export const oppoOverrideFields: ReadonlySet<string> = new Set([
  'app_message_id',
  'style',
  'big_picture_id',
  'small_picture_id',
  'sub_title',
  'click_action_type',
  'click_action_activity',
  'click_action_url',
  'action_parameters',
  'show_time_type',
  'show_start_time',
  'show_end_time',
  'off_line',
  'off_line_ttl',
  'push_time_type',
  'push_start_time',
  'time_zone',
  'fix_speed',
  'fix_speed_rate',
  'network_type',
  'call_back_url',
  'call_back_parameter',
  'channel_id',
  'show_ttl',
  'notify_id',
  'category',
  'notify_level',
  'private_msg_template_id',
  'private_title_parameters',
  'private_content_parameters',
  'verify_registration_id',
]);

/** One push's OPPO message for one profile, without its target and TTL (they vary per message and request). */
export interface OppoMessage {
  readonly notification: Readonly<Record<string, unknown>>;
  /** `verify_registration_id`, when `data.oppo` gave it. */
  readonly verifyRegistrationId: unknown;
  /** Whether `action_parameters` is over OPPO's 4000 characters: the message is not sent. */
  readonly tooLarge: boolean;
}

/**
 * Maps a push to an OPPO notification (OPPO cannot pass a silent message
 * through, so a silent push never gets here):
 *
 * - `title`: the push's, else the profile's `defaultTitle`, else the alert;
 *   `content`: the alert; each cut to OPPO's limits (50 characters, 128 for
 *   the long-text style), the last one an ellipsis, rather than refused;
 * - `click_action_type` and its activity or URL from the profile (0, open
 *   the app, by default), and `action_parameters`: the custom keys as a
 *   JSON object of strings (other values as JSON), which OPPO hands to the
 *   opened activity as its extras;
 * - `channel_id`: the push's notification channel, else the profile's;
 *   `category` and `notify_level` from the profile; `off_line: true`;
 * - then the push's `data.oppo` fields over all of it.
 */
export function buildOppoMessage(content: MakerContent, settings: OppoMessageSettings): OppoMessage {
  const { fields } = content;
  const notification: Record<string, unknown> = {};
  const longText = fields.style === 2;
  notification.title = cut(content.title ?? settings.defaultTitle ?? content.alert, maxOppoTitleLength);
  notification.content = cut(content.alert, longText ? maxLongContentLength : maxStandardContentLength);
  notification.click_action_type = settings.clickActionType;
  if (settings.clickActionActivity !== undefined) notification.click_action_activity = settings.clickActionActivity;
  if (settings.clickActionUrl !== undefined) notification.click_action_url = settings.clickActionUrl;
  const parameters = actionParameters(content.custom);
  if (parameters !== undefined) notification.action_parameters = parameters;
  const channel = content.channel ?? settings.channelId;
  if (channel !== undefined) notification.channel_id = channel;
  if (settings.category !== undefined) notification.category = settings.category;
  if (settings.notifyLevel !== undefined) notification.notify_level = settings.notifyLevel;
  notification.off_line = true;
  let verifyRegistrationId: unknown;
  for (const [key, value] of Object.entries(fields)) {
    if (key === 'verify_registration_id') verifyRegistrationId = value;
    else setOwn(notification, key, key === 'action_parameters' && typeof value === 'object' && value !== null ? JSON.stringify(value) : value);
  }
  const given = notification.action_parameters;
  const tooLarge = typeof given === 'string' && given.length > maxOppoActionParameters;
  return { notification, verifyRegistrationId, tooLarge };
}

/**
 * The `messages` field of a `unicast_batch` request: one message per token,
 * each `{target_type: 2, target_value: <registration id>, notification}`,
 * the notification's `off_line_ttl` the seconds left (1 s to 10 days) unless
 * `data.oppo` set one. The notification is serialised once per request.
 */
export function oppoMessages(built: OppoMessage, tokens: readonly string[], ttlSeconds: number | null): string {
  const { notification } = built;
  const withTtl = ttlSeconds === null || Object.hasOwn(notification, 'off_line_ttl') ? notification : { ...notification, off_line_ttl: oppoTtl(ttlSeconds) };
  const tail = `,"notification":${JSON.stringify(withTtl)}${built.verifyRegistrationId === undefined ? '' : `,"verify_registration_id":${JSON.stringify(built.verifyRegistrationId)}`}}`;
  return `[${tokens.map((token) => `{"target_type":2,"target_value":${JSON.stringify(token)}${tail}`).join(',')}]`;
}

/** The form of a `unicast_batch` request. */
export function oppoSendForm(built: OppoMessage, tokens: readonly string[], ttlSeconds: number | null, authToken: string): string {
  return new URLSearchParams({ auth_token: authToken, messages: oppoMessages(built, tokens, ttlSeconds) }).toString();
}

/** `text` cut to `max` characters (code points, as OPPO counts), the last an ellipsis when cut. */
export function cut(text: string, max: number): string {
  const characters = [...text];
  return characters.length <= max ? text : `${characters.slice(0, max - 1).join('')}…`;
}

/** The custom keys as OPPO's `action_parameters`: a JSON object of strings; undefined when there are none. */
function actionParameters(custom: Readonly<Record<string, unknown>>): string | undefined {
  const entries = Object.entries(custom);
  if (entries.length === 0) return undefined;
  const strings: Record<string, string> = {};
  for (const [key, value] of entries) setOwn(strings, key, typeof value === 'string' ? value : JSON.stringify(value));
  return JSON.stringify(strings);
}

/** Whole seconds from 1 to 10 days. */
function oppoTtl(seconds: number): number {
  return Math.min(maxOppoTtlSeconds, Math.max(1, Math.floor(seconds)));
}
