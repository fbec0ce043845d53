import { setOwn } from '../../query/field-path.ts';
import { isJsonObject } from '../../query/json-value.ts';
import { apnsHeaderKeys } from '../requests/ios-data.ts';

/** Keys of classic-form `data` that move into the `aps` dictionary (`title` merges into `alert`). */
const apsKeys = ['alert', 'sound', 'category', 'thread-id', 'content-available', 'mutable-content', 'target-content-id', 'url-args'] as const;

const consumedKeys: ReadonlySet<string> = new Set([...apsKeys, 'badge', 'title', ...apnsHeaderKeys]);

/** Marks the badge of `data` as "add one to the installation's badge". */
export const incrementBadge = 'Increment';

/**
 * The APNs JSON body for validated `data`, as an object whose first key is
 * `aps` and whose `aps` starts with `badge` when there is one (the template
 * splices badges there). Classic form: known keys move into `aps`, `title`
 * joins a string `alert` as `{title, body}`, custom keys stay at the top.
 * `aps` form: `aps` and custom keys pass through. Header keys are left out.
 */
export function apnsPayload(data: Readonly<Record<string, unknown>>): { aps: Record<string, unknown> } & Record<string, unknown> {
  const aps: Record<string, unknown> = {};
  const payload: { aps: Record<string, unknown> } & Record<string, unknown> = { aps };
  const source = Object.hasOwn(data, 'aps') && isJsonObject(data.aps) ? data.aps : data;
  if (source.badge !== undefined) aps.badge = source.badge;
  if (source === data) {
    for (const key of apsKeys) {
      if (data[key] !== undefined) aps[key] = key === 'alert' ? alertWithTitle(data.alert, data.title) : data[key];
    }
    for (const [key, value] of Object.entries(data)) if (!consumedKeys.has(key)) setOwn(payload, key, value);
  } else {
    for (const [key, value] of Object.entries(source)) if (key !== 'badge') setOwn(aps, key, value);
    for (const [key, value] of Object.entries(data)) if (key !== 'aps' && !apnsHeaderKeys.has(key)) setOwn(payload, key, value);
  }
  if (aps.sound !== undefined) aps.sound = apnsSound(aps.sound);
  // SPEC types url-args as a string; APNs wants the list of arguments.
  if (typeof aps['url-args'] === 'string') aps['url-args'] = [aps['url-args']];
  return payload;
}

function alertWithTitle(alert: unknown, title: unknown): unknown {
  if (typeof title !== 'string') return alert;
  if (typeof alert === 'string') return { title, body: alert };
  // An alert object brings its own title; `title` fills in only when it has none.
  if (isJsonObject(alert) && alert.title === undefined) return { title, ...alert };
  return alert;
}

/** APNs takes `critical` as 1, and needs a `name` in a sound dictionary. */
function apnsSound(sound: unknown): unknown {
  if (!isJsonObject(sound)) return sound;
  const result: Record<string, unknown> = {};
  if (sound.critical === true || sound.critical === 1) result.critical = 1;
  result.name = typeof sound.name === 'string' ? sound.name : 'default';
  if (sound.volume !== undefined) result.volume = sound.volume;
  return result;
}
