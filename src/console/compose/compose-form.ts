import { ErrorCode, HeraldError } from '../../core/errors.ts';

/** What the compose form holds, as typed: every field a string, checked when the push body is built. */
export interface ComposeForm {
  target: 'channels' | 'query' | 'devices';
  channels: string;
  where: string;
  deviceType: 'ios' | 'android';
  deviceIds: string;
  iosTitle: string;
  iosAlert: string;
  iosBadge: string;
  iosSound: string;
  iosExtra: string;
  androidTitle: string;
  androidAlert: string;
  androidSilent: boolean;
  androidChannel: string;
  androidExtra: string;
  data: string;
  prod: 'prod' | 'dev';
  expirationInterval: string;
  flowControl: string;
  /** `YYYY-MM-DDTHH:MM` in UTC, from a datetime-local field; empty to send now. */
  pushTime: string;
  /** The one device of a test send: an iOS token, an installationId or an installation's objectId. */
  testDevice: string;
}

export const emptyComposeForm: ComposeForm = Object.freeze({
  target: 'channels',
  channels: '',
  where: '',
  deviceType: 'ios',
  deviceIds: '',
  iosTitle: '',
  iosAlert: '',
  iosBadge: '',
  iosSound: '',
  iosExtra: '',
  androidTitle: '',
  androidAlert: '',
  androidSilent: false,
  androidChannel: '',
  androidExtra: '',
  data: '',
  prod: 'prod',
  expirationInterval: '',
  flowControl: '',
  pushTime: '',
  testDevice: '',
});

/** Longest text any field keeps; a push body is at most 4096 bytes anyway, a device list at most 500 ids. */
const maxFieldChars = 64 * 1024;

/** Reads the posted form; anything missing is empty, anything unexpected is the default. */
export function readComposeForm(body: Readonly<Record<string, unknown>>): ComposeForm {
  const text = (name: keyof ComposeForm): string => {
    const value = body[name];
    return typeof value === 'string' ? value.slice(0, maxFieldChars) : '';
  };
  const target = text('target');
  return {
    target: target === 'query' || target === 'devices' ? target : 'channels',
    channels: text('channels'),
    where: text('where'),
    deviceType: text('deviceType') === 'android' ? 'android' : 'ios',
    deviceIds: text('deviceIds'),
    iosTitle: text('iosTitle'),
    iosAlert: text('iosAlert'),
    iosBadge: text('iosBadge'),
    iosSound: text('iosSound'),
    iosExtra: text('iosExtra'),
    androidTitle: text('androidTitle'),
    androidAlert: text('androidAlert'),
    androidSilent: body.androidSilent === 'on' || body.androidSilent === 'true',
    androidChannel: text('androidChannel'),
    androidExtra: text('androidExtra'),
    data: text('data'),
    prod: text('prod') === 'dev' ? 'dev' : 'prod',
    expirationInterval: text('expirationInterval'),
    flowControl: text('flowControl'),
    pushTime: text('pushTime'),
    testDevice: text('testDevice'),
  };
}

/** A push the form stands for: the endpoint it goes to and the body it sends, exactly as the API would get it. */
export interface ComposedPush {
  target: 'query' | 'devices';
  body: Record<string, unknown>;
}

/**
 * The push body of the form: `data` with the custom keys at the top and
 * each platform's content in `data.ios` and `data.android` (the platform
 * layers of docs/push-requests.md), the target, and the options. Answers
 * 107 naming the field for JSON that does not parse; the push rules check
 * everything else when the body is read.
 */
export function composePush(form: ComposeForm): ComposedPush {
  const data: Record<string, unknown> = { ...jsonObject(form.data, 'Custom data') };
  const ios: Record<string, unknown> = {};
  if (form.iosAlert.trim() !== '') ios.alert = form.iosAlert;
  if (form.iosTitle.trim() !== '') ios.title = form.iosTitle;
  if (form.iosBadge.trim() !== '') ios.badge = /^\d+$/.test(form.iosBadge.trim()) ? Number(form.iosBadge.trim()) : form.iosBadge.trim();
  if (form.iosSound.trim() !== '') ios.sound = form.iosSound.trim();
  Object.assign(ios, jsonObject(form.iosExtra, 'iOS extra fields'));
  if (Object.keys(ios).length > 0) data.ios = ios;
  const android: Record<string, unknown> = {};
  if (form.androidAlert.trim() !== '') android.alert = form.androidAlert;
  if (form.androidTitle.trim() !== '') android.title = form.androidTitle;
  if (form.androidSilent) android.silent = true;
  Object.assign(android, jsonObject(form.androidExtra, 'Android extra fields'));
  if (Object.keys(android).length > 0) data.android = android;

  const body: Record<string, unknown> = { data, prod: form.prod };
  const interval = form.expirationInterval.trim();
  if (interval !== '') body.expiration_interval = number(interval, 'Expires after');
  const flow = form.flowControl.trim();
  if (flow !== '') body.flow_control = number(flow, 'Flow control');
  const pushTime = form.pushTime.trim();
  if (pushTime !== '') body.push_time = utcTime(pushTime);
  if (form.target === 'devices') {
    body.device_type = form.deviceType;
    body.device_ids = form.deviceIds
      .split(/[\s,]+/)
      .map((id) => id.trim())
      .filter((id) => id !== '');
    if (form.deviceType === 'android' && form.androidChannel.trim() !== '') body.channel = form.androidChannel.trim();
    return { target: 'devices', body };
  }
  if (form.androidChannel.trim() !== '') body._notificationChannel = form.androidChannel.trim();
  if (form.target === 'channels') {
    const channels = form.channels
      .split(/[\s,]+/)
      .map((channel) => channel.trim())
      .filter((channel) => channel !== '');
    if (channels.length === 0) throw new HeraldError(ErrorCode.missingRequiredKey, 'Name at least one channel, or choose another audience.');
    body.channels = channels;
  } else if (form.where.trim() !== '') {
    body.where = jsonObject(form.where, 'Query');
  }
  return { target: 'query', body };
}

function jsonObject(text: string, field: string): Record<string, unknown> {
  if (text.trim() === '') return {};
  let value: unknown;
  try {
    value = JSON.parse(text) as unknown;
  } catch {
    throw new HeraldError(ErrorCode.invalidJson, `${field} is not valid JSON.`);
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) throw new HeraldError(ErrorCode.invalidJson, `${field} must be a JSON object.`);
  return value as Record<string, unknown>;
}

function number(text: string, field: string): number {
  const value = Number(text);
  if (!Number.isFinite(value)) throw new HeraldError(ErrorCode.invalidType, `${field} must be a number.`);
  return value;
}

/** A datetime-local value, read as UTC, as the push_time of the wire (`{__type: Date, iso}`). */
function utcTime(text: string): { __type: 'Date'; iso: string } {
  if (!/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2})?$/.test(text)) throw new HeraldError(ErrorCode.invalidType, 'Send at must be a date and time, e.g. 2030-01-31T09:30.');
  const ms = Date.parse(`${text}Z`);
  if (!Number.isFinite(ms)) throw new HeraldError(ErrorCode.invalidType, 'Send at is not a valid date and time.');
  return { __type: 'Date', iso: new Date(ms).toISOString() };
}
