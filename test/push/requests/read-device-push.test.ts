import { describe, expect, it } from 'vitest';
import { ErrorCode, HeraldError } from '../../../src/core/errors.ts';
import { readDevicePush, type DeviceTarget } from '../../../src/push/requests/push-request.ts';
import { captureError } from '../../support/capture-error.ts';

const context = { now: Date.parse('2026-03-01T12:00:00.000Z'), prodHeader: undefined };
const data = { alert: 'Hello' };
const token = (n: number): string => n.toString(16).padStart(64, '0');

function target(body: Record<string, unknown>): DeviceTarget {
  const request = readDevicePush({ data, ...body }, context);
  if (request.target.kind !== 'devices') throw new Error('expected a device target');
  return request.target;
}

function expectError(body: unknown, code: number, message: RegExp): void {
  const error = captureError(() => readDevicePush(body, context));
  expect(error).toBeInstanceOf(HeraldError);
  expect((error as HeraldError).code).toBe(code);
  expect((error as HeraldError).message).toMatch(message);
}

describe('readDevicePush', () => {
  it('reads an iOS push with the defaults', () => {
    expect(readDevicePush({ device_type: 'ios', device_ids: [token(1)], data }, context)).toEqual({
      data,
      target: { kind: 'devices', deviceType: 'ios', ids: [token(1)] },
      pushTime: null,
      expiresAt: null,
      notificationId: null,
      reqId: null,
      environment: 'prod',
      topic: null,
      apnsTeamId: null,
      flowControl: null,
      androidChannel: null,
    });
  });

  it.each<[string, Record<string, unknown>, DeviceTarget]>([
    [
      'iOS tokens in upper and lower case, in lower case as installations keep them, duplicates (whatever their case) once, in order',
      { device_type: 'ios', device_ids: [token(2), token(1).toUpperCase(), token(2), token(1), token(2).toUpperCase()] },
      { kind: 'devices', deviceType: 'ios', ids: [token(2), token(1)] },
    ],
    ['an iOS token with letters in upper case, in lower case', { device_type: 'ios', device_ids: ['AB'.repeat(32), 'ab'.repeat(32)] }, { kind: 'devices', deviceType: 'ios', ids: ['ab'.repeat(32)] }],
    ['a 100-byte iOS token', { device_type: 'ios', device_ids: ['ab'.repeat(100)] }, { kind: 'devices', deviceType: 'ios', ids: ['ab'.repeat(100)] }],
    [
      'Android installationIds',
      { device_type: 'android', device_ids: ['3f1c2d4e-0000-4000-8000-000000000001', 'x'] },
      { kind: 'devices', deviceType: 'android', ids: ['3f1c2d4e-0000-4000-8000-000000000001', 'x'] },
    ],
    [
      'device_profile for iOS',
      { device_type: 'ios', device_ids: [token(1)], device_profile: 'enterprise' },
      { kind: 'devices', deviceType: 'ios', ids: [token(1)], deviceProfile: 'enterprise' },
    ],
    [
      'channel for Android',
      { device_type: 'android', device_ids: ['a'], channel: 'orders' },
      { kind: 'devices', deviceType: 'android', ids: ['a'], channel: 'orders' },
    ],
    [
      'device_profile given for Android, ignored',
      { device_type: 'android', device_ids: ['a'], device_profile: 'enterprise' },
      { kind: 'devices', deviceType: 'android', ids: ['a'] },
    ],
    [
      'channel given for iOS, ignored',
      { device_type: 'ios', device_ids: [token(1)], channel: 'orders' },
      { kind: 'devices', deviceType: 'ios', ids: [token(1)] },
    ],
    [
      'where, channels and _notificationChannel, which this endpoint ignores',
      { device_type: 'android', device_ids: ['a'], where: 5, channels: 'x', _notificationChannel: 1 },
      { kind: 'devices', deviceType: 'android', ids: ['a'] },
    ],
  ])('reads %s', (_title, body, expected) => {
    expect(target(body)).toEqual(expected);
  });

  it('takes 500 ids', () => {
    const ids = Array.from({ length: 500 }, (_, index) => token(index));
    expect(target({ device_type: 'ios', device_ids: ids }).ids).toEqual(ids);
  });

  it('sets androidChannel from channel for Android', () => {
    expect(readDevicePush({ device_type: 'android', device_ids: ['a'], channel: 'orders', data }, context).androidChannel).toBe('orders');
  });

  it('allows an alert object for iOS devices', () => {
    const alertObject = { alert: { title: 't', body: 'b' } };
    expect(readDevicePush({ device_type: 'ios', device_ids: [token(1)], data: alertObject }, context).data).toEqual(alertObject);
  });

  it.each<[string, unknown, number, RegExp]>([
    ['a body that is an array', [], ErrorCode.invalidJson, /^the request body must be a JSON object$/],
    ['no device_type', { device_ids: ['a'], data }, ErrorCode.missingRequiredKey, /^device_type is required: "ios" or "android"$/],
    ['a numeric device_type', { device_type: 1, device_ids: ['a'], data }, ErrorCode.invalidType, /^device_type must be a string/],
    ['an unknown device_type', { device_type: 'windows', device_ids: ['a'], data }, ErrorCode.internal, /^device_type must be "ios" or "android"$/],
    ['device_type in capitals', { device_type: 'IOS', device_ids: [token(1)], data }, ErrorCode.internal, /^device_type must be "ios" or "android"$/],
    ['no device_ids', { device_type: 'ios', data }, ErrorCode.missingRequiredKey, /^device_ids is required$/],
    ['device_ids null', { device_type: 'ios', device_ids: null, data }, ErrorCode.missingRequiredKey, /^device_ids is required$/],
    ['empty device_ids', { device_type: 'ios', device_ids: [], data }, ErrorCode.missingRequiredKey, /^device_ids must list at least one device$/],
    ['device_ids as a string', { device_type: 'ios', device_ids: token(1), data }, ErrorCode.invalidType, /^device_ids must be an array of strings$/],
    ['a numeric device id', { device_type: 'android', device_ids: [1], data }, ErrorCode.invalidType, /^device_ids must be an array of strings$/],
    [
      '501 device ids',
      { device_type: 'ios', device_ids: Array.from({ length: 501 }, (_, index) => token(index)), data },
      ErrorCode.internal,
      /^device_ids lists more than 500 devices$/,
    ],
    ['an iOS token that is not hex', { device_type: 'ios', device_ids: ['zz'.repeat(32)], data }, ErrorCode.invalidDeviceToken, /^invalid device token "zzzz/],
    ['a short iOS token', { device_type: 'ios', device_ids: ['ab'.repeat(31)], data }, ErrorCode.invalidDeviceToken, /iOS device tokens are 64 to 200 hex digits$/],
    ['an odd-length iOS token', { device_type: 'ios', device_ids: [`${token(1)}a`], data }, ErrorCode.invalidDeviceToken, /invalid device token/],
    ['an iOS token with spaces', { device_type: 'ios', device_ids: [`<${'abcd1234 '.repeat(8).trim()}>`], data }, ErrorCode.invalidDeviceToken, /invalid device token/],
    ['an empty installationId', { device_type: 'android', device_ids: [''], data }, ErrorCode.invalidDeviceToken, /^invalid installationId "" in device_ids$/],
    ['an installationId over 128 characters', { device_type: 'android', device_ids: ['a'.repeat(129)], data }, ErrorCode.invalidDeviceToken, /invalid installationId/],
    ['an installationId with a space', { device_type: 'android', device_ids: ['a b'], data }, ErrorCode.invalidDeviceToken, /invalid installationId "a b"/],
    ['a numeric device_profile', { device_type: 'ios', device_ids: [token(1)], device_profile: 1, data }, ErrorCode.invalidType, /^device_profile must be a string$/],
    ['a numeric channel, even for iOS', { device_type: 'ios', device_ids: [token(1)], channel: 1, data }, ErrorCode.invalidType, /^channel must be a string$/],
    ['no data', { device_type: 'ios', device_ids: [token(1)] }, ErrorCode.missingRequiredKey, /^data is required$/],
    ['an alert object for Android', { device_type: 'android', device_ids: ['a'], data: { alert: {} } }, ErrorCode.invalidType, /^data\.alert must be a string/],
  ])('refuses %s', (_title, body, code, message) => {
    expectError(body, code, message);
  });
});
