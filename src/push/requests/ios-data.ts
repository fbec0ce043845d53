import { ErrorCode, fail } from '../../core/errors.ts';
import { isJsonObject } from '../../query/json-value.ts';

/** Keys of `data` that become APNs request headers and stay out of the payload. */
export const apnsHeaderKeys: ReadonlySet<string> = new Set(['collapse-id', 'apns-priority', 'apns-push-type']);

/**
 * `apns-push-type` values accepted: SPEC's `alert` and `background`, and the
 * other types APNs documents. Types other than these two need a matching
 * `topic` (for example `<bundle id>.voip`), which the caller gives.
 */
export const apnsPushTypes: ReadonlySet<string> = new Set([
  'alert',
  'background',
  'voip',
  'complication',
  'fileprovider',
  'mdm',
  'liveactivity',
  'location',
  'pushtotalk',
  'widgets',
  'controls',
]);

/** Longest `collapse-id` APNs accepts, in bytes. */
export const maxCollapseIdBytes = 64;

type Rule = 'string' | 'strings' | 'number';

const alertObjectRules: Readonly<Record<string, Rule>> = {
  title: 'string',
  'title-loc-key': 'string',
  'title-loc-args': 'strings',
  subtitle: 'string',
  'subtitle-loc-key': 'string',
  'subtitle-loc-args': 'strings',
  body: 'string',
  'action-loc-key': 'string',
  'loc-key': 'string',
  'loc-args': 'strings',
  'launch-image': 'string',
  'summary-arg': 'string',
  'summary-arg-count': 'number',
};

/** `aps` members with a simple type, in the classic form and the `aps` form alike. */
const apsRules: Readonly<Record<string, Rule>> = {
  category: 'string',
  'thread-id': 'string',
  'target-content-id': 'string',
  'content-available': 'number',
  'mutable-content': 'number',
};

export interface IosDataOptions {
  /** True when every device the push can reach is iOS, which allows an alert object. */
  iosOnly: boolean;
}

/**
 * Validates `data` for iOS devices, in the classic form (`alert`, `badge`, …
 * at the top) or the `aps` form (a top-level `aps` dictionary). Other keys
 * are custom and free.
 */
export function checkIosData(data: Record<string, unknown>, options: IosDataOptions): void {
  checkHeaderKeys(data);
  if (Object.hasOwn(data, 'aps')) {
    checkApsForm(data);
    return;
  }
  if (data.alert === undefined || data.alert === null) fail(ErrorCode.missingRequiredKey, 'data.alert is required for iOS devices');
  checkAlert('data.alert', data.alert, options.iosOnly);
  if (data.title !== undefined && typeof data.title !== 'string') fail(ErrorCode.invalidType, 'data.title must be a string');
  checkApsMembers('data', data);
}

function checkApsForm(data: Record<string, unknown>): void {
  const aps = data.aps;
  if (!isJsonObject(aps)) fail(ErrorCode.invalidType, 'data.aps must be an object');
  if (aps.alert !== undefined) checkAlert('data.aps.alert', aps.alert, true);
  checkApsMembers('data.aps', aps);
  const explicitType = data['apns-push-type'];
  const deliversSomething =
    aps.alert !== undefined || aps.badge !== undefined || aps.sound !== undefined || aps['content-available'] === 1;
  if (!deliversSomething && (explicitType === undefined || explicitType === 'alert')) {
    fail(ErrorCode.missingRequiredKey, 'data.aps needs an alert, a badge, a sound or "content-available": 1');
  }
}

function checkApsMembers(prefix: string, holder: Record<string, unknown>): void {
  for (const [key, rule] of Object.entries(apsRules)) checkRule(`${prefix}.${key}`, holder[key], rule);
  if (holder.badge !== undefined) checkBadge(`${prefix}.badge`, holder.badge);
  if (holder.sound !== undefined) checkSound(`${prefix}.sound`, holder.sound);
  const urlArgs = holder['url-args'];
  if (urlArgs !== undefined && typeof urlArgs !== 'string' && !isStringArray(urlArgs)) {
    fail(ErrorCode.invalidType, `${prefix}.url-args must be a string or an array of strings`);
  }
}

function checkAlert(name: string, alert: unknown, objectAllowed: boolean): void {
  if (typeof alert === 'string') return;
  if (!isJsonObject(alert)) fail(ErrorCode.invalidType, `${name} must be a string or an alert object`);
  if (!objectAllowed) {
    fail(ErrorCode.invalidType, `${name} must be a string when the push can reach Android devices; an alert object needs every target to be iOS`);
  }
  // Keys APNs adds later pass through; the documented ones must have their types.
  for (const [key, rule] of Object.entries(alertObjectRules)) checkRule(`${name}.${key}`, alert[key], rule);
}

function checkBadge(name: string, badge: unknown): void {
  if (badge === 'Increment') return;
  if (typeof badge !== 'number') fail(ErrorCode.invalidType, `${name} must be a non-negative integer or "Increment"`);
  if (!Number.isSafeInteger(badge) || badge < 0) fail(ErrorCode.internal, `${name} must be a non-negative integer or "Increment"`);
}

function checkSound(name: string, sound: unknown): void {
  if (typeof sound === 'string') return;
  if (!isJsonObject(sound)) fail(ErrorCode.invalidType, `${name} must be a string or a sound object`);
  checkRule(`${name}.name`, sound.name, 'string');
  const critical = sound.critical;
  // SPEC says boolean; APNs itself takes 0 or 1, so both are understood.
  if (critical !== undefined && typeof critical !== 'boolean' && critical !== 0 && critical !== 1) {
    fail(ErrorCode.invalidType, `${name}.critical must be true or false`);
  }
  const volume = sound.volume;
  if (volume === undefined) return;
  if (typeof volume !== 'number') fail(ErrorCode.invalidType, `${name}.volume must be a number from 0 to 1`);
  if (!(volume >= 0 && volume <= 1)) fail(ErrorCode.internal, `${name}.volume must be a number from 0 to 1`);
}

function checkHeaderKeys(data: Record<string, unknown>): void {
  const collapseId = data['collapse-id'];
  if (collapseId !== undefined) {
    if (typeof collapseId !== 'string') fail(ErrorCode.invalidType, 'data.collapse-id must be a string');
    if (Buffer.byteLength(collapseId) > maxCollapseIdBytes) fail(ErrorCode.internal, `data.collapse-id must be at most ${maxCollapseIdBytes} bytes`);
  }
  const priority = data['apns-priority'];
  if (priority !== undefined) {
    if (typeof priority !== 'number') fail(ErrorCode.invalidType, 'data.apns-priority must be a number, 10 or 5');
    if (priority !== 10 && priority !== 5) fail(ErrorCode.internal, 'data.apns-priority must be 10 or 5');
  }
  const pushType = data['apns-push-type'];
  if (pushType !== undefined) {
    if (typeof pushType !== 'string') fail(ErrorCode.invalidType, 'data.apns-push-type must be a string');
    if (!apnsPushTypes.has(pushType)) fail(ErrorCode.internal, `data.apns-push-type must be one of ${[...apnsPushTypes].join(', ')}`);
    // APNs refuses background pushes sent with priority 10.
    if (pushType === 'background' && priority === 10) fail(ErrorCode.internal, 'data.apns-priority must be 5 for a background push');
  }
}

function checkRule(name: string, value: unknown, rule: Rule): void {
  if (value === undefined) return;
  const valid = rule === 'strings' ? isStringArray(value) : typeof value === rule;
  if (!valid) fail(ErrorCode.invalidType, `${name} must be ${rule === 'strings' ? 'an array of strings' : `a ${rule}`}`);
}

function isStringArray(value: unknown): value is string[] {
  return Array.isArray(value) && value.every((item) => typeof item === 'string');
}
