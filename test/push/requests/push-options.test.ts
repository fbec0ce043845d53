import { describe, expect, it } from 'vitest';
import { ErrorCode, HeraldError } from '../../../src/core/errors.ts';
import { parseIsoTime } from '../../../src/push/requests/param-rules.ts';
import { readDevicePush, readQueryPush, type PushRequest } from '../../../src/push/requests/push-request.ts';
import { captureError } from '../../support/capture-error.ts';

const now = Date.parse('2026-03-01T12:00:00.000Z');
const data = { alert: 'Hello' };
const at = (iso: string): number => Date.parse(iso);

function read(body: Record<string, unknown>, prodHeader?: string): PushRequest {
  return readQueryPush({ data, ...body }, { now, prodHeader });
}

function expectError(body: Record<string, unknown>, code: number, message: RegExp): void {
  const error = captureError(() => read(body));
  expect(error).toBeInstanceOf(HeraldError);
  expect((error as HeraldError).code).toBe(code);
  expect((error as HeraldError).message).toMatch(message);
}

describe('push_time', () => {
  it.each<[string, unknown, number | null]>([
    ['absent: send now', undefined, null],
    ['null: send now', null, null],
    ['in the past: send now', '2026-03-01T11:00:00.000Z', null],
    ['now: send now', '2026-03-01T12:00:00.000Z', null],
    ['59.999 s ahead: send now', '2026-03-01T12:00:59.999Z', null],
    ['exactly a minute ahead: scheduled', '2026-03-01T12:01:00.000Z', at('2026-03-01T12:01:00.000Z')],
    ['a day ahead: scheduled', '2026-03-02T12:00:00.000Z', at('2026-03-02T12:00:00.000Z')],
    ['without milliseconds', '2026-03-02T12:00:00Z', at('2026-03-02T12:00:00.000Z')],
    ['without seconds', '2026-03-02T12:00Z', at('2026-03-02T12:00:00.000Z')],
    ['with microseconds, cut to milliseconds', '2026-03-02T12:00:00.123456Z', at('2026-03-02T12:00:00.123Z')],
    ['with a positive offset', '2026-03-02T20:00:00.000+08:00', at('2026-03-02T12:00:00.000Z')],
    ['with a negative offset without colon', '2026-03-02T07:00:00-0500', at('2026-03-02T12:00:00.000Z')],
    ['as an encoded Date', { __type: 'Date', iso: '2026-03-02T12:00:00.000Z' }, at('2026-03-02T12:00:00.000Z')],
    ['an encoded Date under a minute ahead: send now', { __type: 'Date', iso: '2026-03-01T12:00:30.000Z' }, null],
  ])('%s', (_title, pushTime, expected) => {
    expect(read({ push_time: pushTime }).pushTime).toBe(expected);
  });

  it.each<[string, unknown, number, RegExp]>([
    ['a number', 1772366400000, ErrorCode.invalidType, /^push_time must be an ISO 8601 time or a Date$/],
    ['an object that is not a Date', { iso: '2026-03-02T12:00:00Z' }, ErrorCode.invalidType, /push_time must be an ISO 8601 time or a Date/],
    ['a Date without iso', { __type: 'Date' }, ErrorCode.invalidType, /push_time must be an ISO 8601 time or a Date/],
    ['a time without a zone', '2026-03-02T12:00:00', ErrorCode.internal, /^push_time must be an ISO 8601 time with a time zone/],
    ['a date only', '2026-03-02', ErrorCode.internal, /push_time must be an ISO 8601 time with a time zone/],
    ['February 30th', '2026-02-30T12:00:00Z', ErrorCode.internal, /push_time must be an ISO 8601 time/],
    ['hour 24', '2026-03-02T24:00:00Z', ErrorCode.internal, /push_time must be an ISO 8601 time/],
    ['month 13', '2026-13-02T12:00:00Z', ErrorCode.internal, /push_time must be an ISO 8601 time/],
    ['words', 'tomorrow', ErrorCode.internal, /push_time must be an ISO 8601 time/],
    ['an encoded Date with a bad iso', { __type: 'Date', iso: 'soon' }, ErrorCode.internal, /push_time must be an ISO 8601 time/],
  ])('refuses %s', (_title, pushTime, code, message) => {
    expectError({ push_time: pushTime }, code, message);
  });
});

describe('parseIsoTime', () => {
  it.each<[string, number | null]>([
    ['2024-02-29T00:00:00Z', at('2024-02-29T00:00:00Z')],
    ['2025-02-29T00:00:00Z', null],
    ['2026-03-02T12:00:00.5Z', at('2026-03-02T12:00:00.500Z')],
    ['2026-03-02T12:00:60Z', null],
    ['2026-03-02T12:00:00+24:00', null],
    ['2026-03-02 12:00:00Z', null],
    [' 2026-03-02T12:00:00Z', null],
  ])('%s', (text, expected) => {
    expect(parseIsoTime(text)).toBe(expected);
  });
});

describe('expiry', () => {
  it.each<[string, Record<string, unknown>, number | null]>([
    ['none', {}, null],
    ['expiration_time', { expiration_time: '2026-03-05T00:00:00.000Z' }, at('2026-03-05T00:00:00.000Z')],
    ['expiration_time as an encoded Date', { expiration_time: { __type: 'Date', iso: '2026-03-05T00:00:00.000Z' } }, at('2026-03-05T00:00:00.000Z')],
    ['expiration_interval from now', { expiration_interval: 86_400 }, at('2026-03-02T12:00:00.000Z')],
    ['expiration_interval as a decimal string', { expiration_interval: '86400' }, at('2026-03-02T12:00:00.000Z')],
    ['a fractional expiration_interval', { expiration_interval: 1.5 }, now + 1500],
    [
      'expiration_interval from push_time',
      { push_time: '2026-03-01T18:00:00.000Z', expiration_interval: 3600 },
      at('2026-03-01T19:00:00.000Z'),
    ],
    [
      'expiration_interval from now when push_time is under a minute ahead',
      { push_time: '2026-03-01T12:00:30.000Z', expiration_interval: 60 },
      now + 60_000,
    ],
    [
      'the earlier of both: expiration_time',
      { expiration_time: '2026-03-01T13:00:00.000Z', expiration_interval: 7200 },
      at('2026-03-01T13:00:00.000Z'),
    ],
    [
      'the earlier of both: expiration_interval',
      { expiration_time: '2026-03-01T15:00:00.000Z', expiration_interval: 3600 },
      at('2026-03-01T13:00:00.000Z'),
    ],
    ['an expiration_time already past, left for the engine to drop', { expiration_time: '2026-03-01T11:00:00.000Z' }, at('2026-03-01T11:00:00.000Z')],
    [
      'an expiration_interval ending at the last millisecond of 9999',
      { push_time: '9999-12-31T23:00:00.000Z', expiration_interval: 3599.999 },
      at('9999-12-31T23:59:59.999Z'),
    ],
  ])('%s', (_title, body, expected) => {
    expect(read(body).expiresAt).toBe(expected);
  });

  it.each<[string, Record<string, unknown>, number, RegExp]>([
    ['an expiration_time without a zone', { expiration_time: '2026-03-05T00:00:00' }, ErrorCode.internal, /^expiration_time must be an ISO 8601 time/],
    ['a numeric expiration_time', { expiration_time: 5 }, ErrorCode.invalidType, /^expiration_time must be an ISO 8601 time or a Date$/],
    ['expiration_interval 0', { expiration_interval: 0 }, ErrorCode.internal, /^expiration_interval must be a positive number of seconds$/],
    ['a negative expiration_interval', { expiration_interval: -5 }, ErrorCode.internal, /^expiration_interval must be a non-negative number$/],
    ['a word for expiration_interval', { expiration_interval: 'one day' }, ErrorCode.internal, /^expiration_interval must be a non-negative number$/],
    ['a boolean expiration_interval', { expiration_interval: true }, ErrorCode.invalidType, /^expiration_interval must be a number$/],
    ['an expiration_interval past any time (it was a 500)', { expiration_interval: 1e300 }, ErrorCode.internal, /^expiration_interval reaches past the year 9999$/],
    ['15 digits of expiration_interval (it was a 500)', { expiration_interval: '999999999999999' }, ErrorCode.internal, /^expiration_interval reaches past the year 9999$/],
    [
      'an expiration_interval a millisecond past 9999 from push_time',
      { push_time: '9999-12-31T23:00:00.000Z', expiration_interval: 3600 },
      ErrorCode.internal,
      /^expiration_interval reaches past the year 9999$/,
    ],
  ])('refuses %s', (_title, body, code, message) => {
    expectError(body, code, message);
  });
});

describe('prod and X-SVC-Prod', () => {
  it.each<[string, unknown, string | undefined, 'prod' | 'dev']>([
    ['neither', undefined, undefined, 'prod'],
    ['header 1', undefined, '1', 'prod'],
    ['header 0', undefined, '0', 'dev'],
    ['header dev', undefined, 'dev', 'dev'],
    ['an empty header', undefined, '', 'dev'],
    ['prod "dev"', 'dev', undefined, 'dev'],
    ['prod "prod"', 'prod', undefined, 'prod'],
    ['prod "prod" over header 0', 'prod', '0', 'prod'],
    ['prod "dev" over header 1', 'dev', '1', 'dev'],
    ['prod null, then the header', null, '0', 'dev'],
  ])('%s', (_title, prod, header, expected) => {
    expect(read({ prod }, header).environment).toBe(expected);
  });

  it.each<[string, unknown, number, RegExp]>([
    ['another word', 'production', ErrorCode.internal, /^prod must be "dev" or "prod"$/],
    ['upper case', 'DEV', ErrorCode.internal, /prod must be "dev" or "prod"/],
    ['a boolean', true, ErrorCode.invalidType, /^prod must be a string, "dev" or "prod"$/],
    ['a number', 1, ErrorCode.invalidType, /prod must be a string/],
  ])('refuses prod as %s', (_title, prod, code, message) => {
    expectError({ prod }, code, message);
  });
});

describe('notification_id and req_id', () => {
  it.each(['notification_id', 'req_id'])('accepts 16 letters and digits as %s', (name) => {
    const request = read({ [name]: 'Ab3'.repeat(5) + 'Z' });
    expect(name === 'req_id' ? request.reqId : request.notificationId).toBe('Ab3Ab3Ab3Ab3Ab3Z');
  });

  it.each<[string, unknown, number, RegExp]>([
    ['17 characters', 'a'.repeat(17), ErrorCode.internal, /must be 1 to 16 letters and digits$/],
    ['an empty string', '', ErrorCode.internal, /must be 1 to 16 letters and digits/],
    ['a dash', 'ab-cd', ErrorCode.internal, /must be 1 to 16 letters and digits/],
    ['an underscore', 'ab_cd', ErrorCode.internal, /must be 1 to 16 letters and digits/],
    ['a non-ASCII letter', 'abcé', ErrorCode.internal, /must be 1 to 16 letters and digits/],
    ['a number', 12345, ErrorCode.invalidType, /must be a string$/],
  ])('refuses %s', (_title, value, code, message) => {
    expectError({ notification_id: value }, code, new RegExp(`^notification_id ${message.source.replace(/^\^/, '')}`));
    expectError({ req_id: value }, code, new RegExp(`^req_id ${message.source.replace(/^\^/, '')}`));
  });
});

describe('flow_control', () => {
  it.each<[string, unknown, number | null]>([
    ['absent: disabled', undefined, null],
    ['0: disabled', 0, null],
    ['below the minimum: raised to 1000', 10, 1000],
    ['a fraction: raised to 1000', 0.5, 1000],
    ['exactly 1000', 1000, 1000],
    ['above the minimum', 25_000, 25_000],
    ['a fraction above the minimum: whole deliveries', 1500.7, 1500],
    ['a decimal string', '2000', 2000],
    ['the largest accepted', 10_000_000, 10_000_000],
  ])('%s', (_title, value, expected) => {
    expect(read({ flow_control: value }).flowControl).toBe(expected);
  });

  it.each<[string, unknown, number, RegExp]>([
    ['a negative number', -1, ErrorCode.internal, /^flow_control must be a non-negative number$/],
    ['a word', 'fast', ErrorCode.internal, /^flow_control must be a non-negative number$/],
    ['an object', {}, ErrorCode.invalidType, /^flow_control must be a number$/],
    ['one over the largest', 10_000_001, ErrorCode.internal, /^flow_control must be at most 10000000 deliveries per second$/],
    ['a rate no token bucket holds (the senders failed on it)', 1e300, ErrorCode.internal, /^flow_control must be at most 10000000/],
    ['15 digits as a string', '999999999999999', ErrorCode.internal, /^flow_control must be at most 10000000/],
  ])('refuses %s', (_title, value, code, message) => {
    expectError({ flow_control: value }, code, message);
  });
});

describe('topic, apns_team_id and _notificationChannel', () => {
  it('reads them as strings', () => {
    expect(read({ topic: 'com.example', apns_team_id: 'T1', _notificationChannel: 'news' })).toMatchObject({
      topic: 'com.example',
      apnsTeamId: 'T1',
      androidChannel: 'news',
    });
  });

  it('treats empty strings as not given', () => {
    expect(read({ topic: '', apns_team_id: '', _notificationChannel: '' })).toMatchObject({ topic: null, apnsTeamId: null, androidChannel: null });
  });

  it.each(['topic', 'apns_team_id', '_notificationChannel'])('refuses a %s that is not a string', (name) => {
    expectError({ [name]: 5 }, ErrorCode.invalidType, new RegExp(`^${name} must be a string$`));
  });

  it('reads the shared parameters on /push/devices too', () => {
    const request = readDevicePush(
      {
        device_type: 'ios',
        device_ids: ['ab'.repeat(32)],
        data,
        push_time: '2026-03-01T13:00:00.000Z',
        expiration_interval: 60,
        notification_id: 'n1',
        req_id: 'r1',
        topic: 'com.example',
        apns_team_id: 'T1',
        flow_control: 1,
      },
      { now, prodHeader: '0' },
    );
    expect(request).toMatchObject({
      pushTime: at('2026-03-01T13:00:00.000Z'),
      expiresAt: at('2026-03-01T13:01:00.000Z'),
      notificationId: 'n1',
      reqId: 'r1',
      environment: 'dev',
      topic: 'com.example',
      apnsTeamId: 'T1',
      flowControl: 1000,
      androidChannel: null,
    });
  });
});
