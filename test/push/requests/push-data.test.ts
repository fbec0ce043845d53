import { describe, expect, it } from 'vitest';
import { ErrorCode, HeraldError } from '../../../src/core/errors.ts';
import { readDevicePush, readQueryPush } from '../../../src/push/requests/push-request.ts';
import { captureError } from '../../support/capture-error.ts';

const context = { now: Date.parse('2026-03-01T12:00:00.000Z'), prodHeader: undefined };
const iosToken = 'ab'.repeat(32);

/** `data` sent to iOS devices only. */
const toIos = (data: unknown) => () => readDevicePush({ device_type: 'ios', device_ids: [iosToken], data }, context);
/** `data` sent to Android devices only. */
const toAndroid = (data: unknown) => () => readDevicePush({ device_type: 'android', device_ids: ['inst-1'], data }, context);
/** `data` sent by a query that can reach both platforms. */
const toBoth = (data: unknown) => () => readQueryPush({ data }, context);

function expectError(run: () => unknown, code: number, message: RegExp): void {
  const error = captureError(run);
  expect(error).toBeInstanceOf(HeraldError);
  expect((error as HeraldError).code).toBe(code);
  expect((error as HeraldError).message).toMatch(message);
}

describe('data for iOS devices', () => {
  it.each<[string, Record<string, unknown>]>([
    ['a string alert', { alert: 'Hello' }],
    ['an empty string alert', { alert: '' }],
    ['a string that holds JSON', { alert: '{"title":"a"}' }],
    ['an alert with a title', { alert: 'Hello', title: 'News' }],
    [
      'an alert object with every documented key',
      {
        alert: {
          title: 't',
          'title-loc-key': 'k',
          'title-loc-args': ['a'],
          subtitle: 's',
          'subtitle-loc-key': 'k',
          'subtitle-loc-args': [],
          body: 'b',
          'action-loc-key': 'k',
          'loc-key': 'k',
          'loc-args': ['x', 'y'],
          'launch-image': 'img.png',
          'summary-arg': 's',
          'summary-arg-count': 2,
        },
      },
    ],
    ['an alert object with a key APNs added later', { alert: { body: 'b', 'future-key': 1 } }],
    ['badge 0', { alert: 'a', badge: 0 }],
    ['badge 7', { alert: 'a', badge: 7 }],
    ['badge Increment', { alert: 'a', badge: 'Increment' }],
    ['a sound file name', { alert: 'a', sound: 'ping.caf' }],
    ['a sound object', { alert: 'a', sound: { name: 'alarm.caf', critical: true, volume: 0.5 } }],
    ['an empty sound object', { alert: 'a', sound: {} }],
    ['a sound object with critical 1 as APNs writes it', { alert: 'a', sound: { critical: 1 } }],
    ['volume 0 and 1', { alert: 'a', sound: { volume: 0 } }],
    ['content-available and mutable-content', { alert: 'a', 'content-available': 1, 'mutable-content': 1 }],
    ['apns-priority 5', { alert: 'a', 'apns-priority': 5 }],
    ['apns-priority 10', { alert: 'a', 'apns-priority': 10 }],
    ['apns-push-type background', { alert: 'a', 'apns-push-type': 'background' }],
    ['apns-push-type voip', { alert: 'a', 'apns-push-type': 'voip' }],
    ['a 64-byte collapse-id', { alert: 'a', 'collapse-id': 'c'.repeat(64) }],
    ['thread-id, category, target-content-id', { alert: 'a', 'thread-id': 't', category: 'c', 'target-content-id': 'x' }],
    ['url-args as a string', { alert: 'a', 'url-args': 'x' }],
    ['url-args as a list', { alert: 'a', 'url-args': ['x', 'y'] }],
    ['custom keys of any name and type', { alert: 'a', _private: { $x: [1] }, 'a.b': null, from: 1 }],
    ['the aps form with an alert', { aps: { alert: 'Hi', badge: 1 }, 'collapse-id': 'c', custom: 1 }],
    ['the aps form with an alert object', { aps: { alert: { title: 't', body: 'b' } } }],
    ['the aps form for a silent background push', { aps: { 'content-available': 1 } }],
    ['the aps form setting only the badge', { aps: { badge: 0 } }],
    ['the aps form with only a sound', { aps: { sound: 'x.caf' } }],
    ['the aps form with keys APNs added later', { aps: { alert: 'a', 'interruption-level': 'time-sensitive' } }],
    ['the aps form for a live activity', { aps: { event: 'update', 'content-state': {} }, 'apns-push-type': 'liveactivity' }],
  ])('accepts %s', (_title, data) => {
    expect(toIos(data)().data).toEqual(data);
  });

  it('keeps data as given', () => {
    const data = { alert: 'a', badge: 'Increment' };
    expect(toIos(data)().data).toBe(data);
  });

  it.each<[string, unknown, number, RegExp]>([
    ['no data', undefined, ErrorCode.missingRequiredKey, /^data is required$/],
    ['data null', null, ErrorCode.missingRequiredKey, /^data is required$/],
    ['data that is a string', 'Hello', ErrorCode.invalidType, /^data must be a JSON object$/],
    ['data that is an array', [{ alert: 'a' }], ErrorCode.invalidType, /^data must be a JSON object$/],
    ['no alert', { title: 't' }, ErrorCode.missingRequiredKey, /^data\.alert is required for iOS devices$/],
    ['alert null', { alert: null }, ErrorCode.missingRequiredKey, /data\.alert is required/],
    ['a numeric alert', { alert: 5 }, ErrorCode.invalidType, /^data\.alert must be a string or an alert object$/],
    ['an alert list', { alert: ['a'] }, ErrorCode.invalidType, /data\.alert must be a string or an alert object/],
    ['an alert object with a numeric body', { alert: { body: 1 } }, ErrorCode.invalidType, /^data\.alert\.body must be a string$/],
    ['loc-args that are not strings', { alert: { 'loc-args': [1] } }, ErrorCode.invalidType, /^data\.alert\.loc-args must be an array of strings$/],
    ['a string summary-arg-count', { alert: { 'summary-arg-count': '2' } }, ErrorCode.invalidType, /summary-arg-count must be a number/],
    ['a numeric title', { alert: 'a', title: 1 }, ErrorCode.invalidType, /^data\.title must be a string$/],
    ['a negative badge', { alert: 'a', badge: -1 }, ErrorCode.internal, /^data\.badge must be a non-negative integer or "Increment"$/],
    ['a fractional badge', { alert: 'a', badge: 1.5 }, ErrorCode.internal, /data\.badge must be a non-negative integer/],
    ['badge "increment" in lower case', { alert: 'a', badge: 'increment' }, ErrorCode.invalidType, /data\.badge must be/],
    ['a numeric string badge', { alert: 'a', badge: '3' }, ErrorCode.invalidType, /data\.badge must be/],
    ['a numeric sound', { alert: 'a', sound: 1 }, ErrorCode.invalidType, /^data\.sound must be a string or a sound object$/],
    ['a sound name that is not a string', { alert: 'a', sound: { name: 1 } }, ErrorCode.invalidType, /^data\.sound\.name must be a string$/],
    ['critical as a string', { alert: 'a', sound: { critical: 'yes' } }, ErrorCode.invalidType, /^data\.sound\.critical must be true or false$/],
    ['a volume as a string', { alert: 'a', sound: { volume: '0.5' } }, ErrorCode.invalidType, /^data\.sound\.volume must be a number from 0 to 1$/],
    ['a volume above 1', { alert: 'a', sound: { volume: 1.5 } }, ErrorCode.internal, /^data\.sound\.volume must be a number from 0 to 1$/],
    ['a negative volume', { alert: 'a', sound: { volume: -0.1 } }, ErrorCode.internal, /data\.sound\.volume/],
    ['content-available as a boolean', { alert: 'a', 'content-available': true }, ErrorCode.invalidType, /^data\.content-available must be a number$/],
    ['mutable-content as a string', { alert: 'a', 'mutable-content': '1' }, ErrorCode.invalidType, /^data\.mutable-content must be a number$/],
    ['a numeric category', { alert: 'a', category: 1 }, ErrorCode.invalidType, /^data\.category must be a string$/],
    ['a numeric thread-id', { alert: 'a', 'thread-id': 1 }, ErrorCode.invalidType, /^data\.thread-id must be a string$/],
    ['a numeric target-content-id', { alert: 'a', 'target-content-id': 1 }, ErrorCode.invalidType, /^data\.target-content-id must be a string$/],
    ['url-args of numbers', { alert: 'a', 'url-args': [1] }, ErrorCode.invalidType, /^data\.url-args must be a string or an array of strings$/],
    ['a numeric collapse-id', { alert: 'a', 'collapse-id': 1 }, ErrorCode.invalidType, /^data\.collapse-id must be a string$/],
    ['a 65-byte collapse-id', { alert: 'a', 'collapse-id': 'c'.repeat(65) }, ErrorCode.internal, /^data\.collapse-id must be at most 64 bytes$/],
    ['a collapse-id of 22 three-byte characters', { alert: 'a', 'collapse-id': '通'.repeat(22) }, ErrorCode.internal, /at most 64 bytes/],
    ['apns-priority 7', { alert: 'a', 'apns-priority': 7 }, ErrorCode.internal, /^data\.apns-priority must be 10 or 5$/],
    ['apns-priority as a string', { alert: 'a', 'apns-priority': '10' }, ErrorCode.invalidType, /^data\.apns-priority must be a number, 10 or 5$/],
    ['an unknown apns-push-type', { alert: 'a', 'apns-push-type': 'banner' }, ErrorCode.internal, /^data\.apns-push-type must be one of alert, background, voip/],
    ['a numeric apns-push-type', { alert: 'a', 'apns-push-type': 1 }, ErrorCode.invalidType, /^data\.apns-push-type must be a string$/],
    [
      'a background push with priority 10',
      { alert: 'a', 'apns-push-type': 'background', 'apns-priority': 10 },
      ErrorCode.internal,
      /^data\.apns-priority must be 5 for a background push$/,
    ],
    ['an aps that is not an object', { aps: 'Hi' }, ErrorCode.invalidType, /^data\.aps must be an object$/],
    ['aps null', { aps: null, alert: 'a' }, ErrorCode.invalidType, /^data\.aps must be an object$/],
    ['an empty aps', { aps: {} }, ErrorCode.missingRequiredKey, /^data\.aps needs an alert, a badge, a sound or "content-available": 1$/],
    ['an aps with content-available 0 only', { aps: { 'content-available': 0 } }, ErrorCode.missingRequiredKey, /data\.aps needs/],
    ['an aps alert of the wrong type', { aps: { alert: 1 } }, ErrorCode.invalidType, /^data\.aps\.alert must be a string or an alert object$/],
    ['an aps badge of the wrong type', { aps: { alert: 'a', badge: 'x' } }, ErrorCode.invalidType, /^data\.aps\.badge must be/],
    ['an aps sound volume out of range', { aps: { sound: { volume: 2 } } }, ErrorCode.internal, /^data\.aps\.sound\.volume/],
    ['an aps category of the wrong type', { aps: { alert: 'a', category: [] } }, ErrorCode.invalidType, /^data\.aps\.category must be a string$/],
    ['header keys of the aps form checked too', { aps: { alert: 'a' }, 'apns-priority': 1 }, ErrorCode.internal, /apns-priority must be 10 or 5/],
  ])('refuses %s', (_title, data, code, message) => {
    expectError(toIos(data), code, message);
  });
});

describe('data for Android devices', () => {
  it.each<[string, Record<string, unknown>]>([
    ['an alert', { alert: 'Hello' }],
    ['alert, title, silent and action', { alert: 'Hello', title: 'T', silent: true, action: 'com.example.UPDATE' }],
    ['custom keys of any type', { alert: 'a', n: 1, list: [1], nested: { a: null }, _x: 1, badge: 'Increment' }],
    ['iOS keys of any type, which Android ignores', { alert: 'a', badge: -4, 'apns-priority': 3, sound: 9 }],
    ['an aps object beside the alert', { alert: 'a', aps: 'whatever' }],
  ])('accepts %s', (_title, data) => {
    expect(toAndroid(data)().data).toEqual(data);
  });

  it.each<[string, unknown, number, RegExp]>([
    ['no alert', { title: 't' }, ErrorCode.missingRequiredKey, /^data\.alert is required for Android devices$/],
    ['an alert object', { alert: { body: 'b' } }, ErrorCode.invalidType, /^data\.alert must be a string when the push can reach Android devices/],
    ['the aps form without a top-level alert', { aps: { alert: 'a' } }, ErrorCode.missingRequiredKey, /data\.alert is required for Android/],
    ['a numeric title', { alert: 'a', title: 2 }, ErrorCode.invalidType, /^data\.title must be a string$/],
    ['silent as a string', { alert: 'a', silent: 'true' }, ErrorCode.invalidType, /^data\.silent must be true or false$/],
    ['a numeric action', { alert: 'a', action: 1 }, ErrorCode.invalidType, /^data\.action must be a string$/],
    ['the FCM key from', { alert: 'a', from: 'x' }, ErrorCode.invalidFieldName, /^data\.from is reserved by FCM/],
    ['the FCM key message_type', { alert: 'a', message_type: 'x' }, ErrorCode.invalidFieldName, /data\.message_type is reserved/],
    ['the FCM key notification', { alert: 'a', notification: {} }, ErrorCode.invalidFieldName, /data\.notification is reserved/],
    ['a google. key', { alert: 'a', 'google.c.a': 1 }, ErrorCode.invalidFieldName, /data\.google\.c\.a is reserved/],
    ['a gcm. key', { alert: 'a', 'gcm.n.e': '1' }, ErrorCode.invalidFieldName, /data\.gcm\.n\.e is reserved/],
  ])('refuses %s', (_title, data, code, message) => {
    expectError(toAndroid(data), code, message);
  });
});

describe('data for a push that can reach both platforms', () => {
  it('accepts a string alert that suits both', () => {
    expect(toBoth({ alert: 'Hello', title: 'T', badge: 'Increment', silent: false })().data).toEqual({
      alert: 'Hello',
      title: 'T',
      badge: 'Increment',
      silent: false,
    });
  });

  it('accepts the aps form beside a string alert for Android', () => {
    const data = { aps: { alert: { title: 't', body: 'b' } }, alert: 'b' };
    expect(toBoth(data)().data).toEqual(data);
  });

  it.each<[string, unknown, number, RegExp]>([
    [
      'an alert object',
      { alert: { title: 't', body: 'b' } },
      ErrorCode.invalidType,
      /^data\.alert must be a string when the push can reach Android devices; an alert object needs every target to be iOS$/,
    ],
    ['iOS rules', { alert: 'a', badge: -1 }, ErrorCode.internal, /data\.badge/],
    ['Android rules', { alert: 'a', silent: 1 }, ErrorCode.invalidType, /data\.silent/],
    ['the aps form without an alert for Android', { aps: { alert: 'a' } }, ErrorCode.missingRequiredKey, /data\.alert is required for Android/],
  ])('applies %s', (_title, data, code, message) => {
    expectError(toBoth(data), code, message);
  });

  it('allows an alert object once where pins deviceType to ios', () => {
    const data = { alert: { title: 't', body: 'b' } };
    expect(readQueryPush({ data, where: { deviceType: 'ios' } }, context).data).toEqual(data);
  });

  it('checks only what is common when the query can reach no platform', () => {
    const data = { alert: 5 };
    expect(readQueryPush({ data, where: { deviceType: 'windows' } }, context).data).toEqual(data);
  });
});
