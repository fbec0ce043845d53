import { ErrorCode, fail } from '../../core/errors.ts';

/**
 * Letters, digits, `_`, `-`, `=` and CJK characters (SPEC-NOTES,
 * installations): Han, kana with the prolonged sound mark ー, and Hangul.
 */
const channelPattern = /^[A-Za-z0-9_=\-\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\u30FC\p{Script=Hangul}]+$/u;

/** Longest channel name accepted, in characters. */
export const maxChannelLength = 128;

/** Whether a value is a valid channel name. */
export function isChannelName(value: unknown): value is string {
  return typeof value === 'string' && value.length <= maxChannelLength && channelPattern.test(value);
}

/**
 * The `channels` parameter of `POST /1.1/push`: an array of channel names
 * (111 when not an array, 112 for a bad name), duplicates removed.
 */
export function readChannels(value: unknown): string[] | null {
  if (value === undefined) return null;
  if (!Array.isArray(value)) fail(ErrorCode.invalidType, 'channels must be an array of channel names');
  const channels = new Set<string>();
  for (const item of value) {
    if (!isChannelName(item)) {
      const shown = typeof item === 'string' ? JSON.stringify(item.slice(0, 40)) : JSON.stringify(item)?.slice(0, 40) ?? String(item);
      fail(ErrorCode.invalidChannelName, `invalid channel name ${shown} in channels: use letters, digits, _, -, = and CJK characters`);
    }
    channels.add(item);
  }
  return [...channels];
}
