import { describe, expect, it } from 'vitest';
import { ErrorCode, HeraldError } from '../../../src/core/errors.ts';
import { readQueryPush, type Platform, type PushRequest, type QueryTarget } from '../../../src/push/requests/push-request.ts';
import { matches } from '../../../src/query/match.ts';
import { captureError } from '../../support/capture-error.ts';

const now = Date.parse('2026-03-01T12:00:00.000Z');
const context = { now, prodHeader: undefined };
const data = { alert: 'Hello' };

function read(body: Record<string, unknown>): PushRequest {
  return readQueryPush({ data, ...body }, context);
}

function target(body: Record<string, unknown>): QueryTarget {
  const request = read(body);
  if (request.target.kind !== 'query') throw new Error('expected a query target');
  return request.target;
}

function expectError(run: () => unknown, code: number, message: RegExp): void {
  const error = captureError(run);
  expect(error).toBeInstanceOf(HeraldError);
  expect((error as HeraldError).code).toBe(code);
  expect((error as HeraldError).message).toMatch(message);
}

describe('readQueryPush', () => {
  it('reads a minimal body with the defaults', () => {
    expect(readQueryPush({ data }, context)).toEqual({
      data,
      target: { kind: 'query', where: null, whereJson: null, platforms: new Set(['ios', 'android']) },
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

  it('reads every parameter', () => {
    const request = readQueryPush(
      {
        data,
        where: { score: { $gt: 3 } },
        channels: ['news'],
        push_time: '2026-03-01T13:00:00.000Z',
        expiration_interval: 3600,
        notification_id: 'abc123',
        req_id: 'REQ42',
        prod: 'dev',
        topic: 'com.example.app',
        apns_team_id: 'TEAM1',
        flow_control: 5000,
        _notificationChannel: 'alerts',
      },
      context,
    );
    expect(request).toMatchObject({
      pushTime: Date.parse('2026-03-01T13:00:00.000Z'),
      expiresAt: Date.parse('2026-03-01T14:00:00.000Z'),
      notificationId: 'abc123',
      reqId: 'REQ42',
      environment: 'dev',
      topic: 'com.example.app',
      apnsTeamId: 'TEAM1',
      flowControl: 5000,
      androidChannel: 'alerts',
    });
    expect(request.target).toMatchObject({ whereJson: { score: { $gt: 3 }, channels: { $in: ['news'] } } });
  });

  it('ignores unknown parameters and parameters of the device endpoint', () => {
    expect(read({ device_type: 'ios', device_ids: 5, channel: 1, badge: 'x' })).toEqual(read({}));
  });

  it.each<[string, unknown]>([
    ['an array', [{ data }]],
    ['a string', '{"data":{}}'],
    ['null', null],
    ['a number', 3],
  ])('refuses a body that is %s with 107', (_title, body) => {
    expectError(() => readQueryPush(body, context), ErrorCode.invalidJson, /^the request body must be a JSON object$/);
  });
});

describe('where and channels', () => {
  it('keeps where as given and parses it with the query language', () => {
    const where = {
      createdAt: { $gte: { __type: 'Date', iso: '2026-01-01T00:00:00.000Z' } },
      location: { __type: 'GeoPoint', latitude: 30, longitude: 120 },
      $or: [{ channels: 'a' }, { user: { __type: 'Pointer', className: '_User', objectId: 'u1' } }],
    };
    const parsed = target({ where });
    expect(parsed.whereJson).toBe(where);
    expect(parsed.where).toEqual({
      kind: 'and',
      conditions: [
        { kind: 'field', path: ['createdAt'], predicates: [{ op: 'gte', value: { __type: 'Date', iso: '2026-01-01T00:00:00.000Z' } }] },
        { kind: 'field', path: ['location'], predicates: [{ op: 'eq', value: { __type: 'GeoPoint', latitude: 30, longitude: 120 } }] },
        {
          kind: 'or',
          conditions: [
            { kind: 'field', path: ['channels'], predicates: [{ op: 'eq', value: 'a' }] },
            { kind: 'field', path: ['user'], predicates: [{ op: 'eq', value: { __type: 'Pointer', className: '_User', objectId: 'u1' } }] },
          ],
        },
      ],
    });
  });

  it('accepts where as a string holding JSON', () => {
    expect(target({ where: '{"deviceType":"android"}' })).toMatchObject({
      whereJson: { deviceType: 'android' },
      where: { kind: 'field', path: ['deviceType'], predicates: [{ op: 'eq', value: 'android' }] },
    });
  });

  it('stores an empty where and matches everything', () => {
    expect(target({ where: {} })).toMatchObject({ whereJson: {}, where: null });
  });

  it('treats where null as not given', () => {
    expect(target({ where: null })).toMatchObject({ whereJson: null, where: null });
  });

  it.each<[string, Record<string, unknown>, Record<string, unknown>]>([
    ['channels alone', { channels: ['news', 'sports'] }, { channels: { $in: ['news', 'sports'] } }],
    ['channels beside where', { where: { deviceType: 'ios' }, channels: ['news'] }, { deviceType: 'ios', channels: { $in: ['news'] } }],
    [
      'channels ANDed with a channels condition in where',
      { where: { channels: 'vip', score: 1 }, channels: ['news'] },
      { $and: [{ channels: 'vip', score: 1 }, { channels: { $in: ['news'] } }] },
    ],
    ['duplicate channels once', { channels: ['a', 'b', 'a'] }, { channels: { $in: ['a', 'b'] } }],
    ['channel names with CJK, digits, _, - and =', { channels: ['新闻', 'ニュース', '뉴스', 'a_b-c=1'] }, { channels: { $in: ['新闻', 'ニュース', '뉴스', 'a_b-c=1'] } }],
    ['an empty channel list, which matches no device', { channels: [] }, { channels: { $in: [] } }],
  ])('merges %s', (_title, body, whereJson) => {
    expect(target(body).whereJson).toEqual(whereJson);
  });

  it('targets the devices of the merged condition', () => {
    const { where } = target({ where: { channels: 'vip' }, channels: ['news'] });
    expect(matches(where, { channels: ['vip', 'news'] })).toBe(true);
    expect(matches(where, { channels: ['vip'] })).toBe(false);
    expect(matches(where, { channels: ['news'] })).toBe(false);
  });

  it('does not change the where it was given', () => {
    const where = { score: 1 };
    read({ where, channels: ['a'] });
    expect(where).toEqual({ score: 1 });
  });

  it.each<[string, Record<string, unknown>, number, RegExp]>([
    ['where that is not JSON', { where: '{"a":' }, ErrorCode.invalidJson, /^where is not valid JSON$/],
    ['where that is a JSON array', { where: [] }, ErrorCode.invalidJson, /^where must be a JSON object$/],
    ['where that is a string holding an array', { where: '[1]' }, ErrorCode.invalidJson, /^where must be a JSON object$/],
    ['where that is a number', { where: 3 }, ErrorCode.invalidJson, /^where must be a JSON object$/],
    ['an unknown operator in where', { where: { a: { $near: 1 } } }, ErrorCode.internal, /unknown operator \$near/],
    ['an invalid field name in where', { where: { '1a': 1 } }, ErrorCode.invalidFieldName, /invalid field name/],
    ['an invalid Date in where', { where: { a: { __type: 'Date', iso: 'soon' } } }, ErrorCode.internal, /invalid Date/],
    ['channels that is a string', { channels: 'news' }, ErrorCode.invalidType, /^channels must be an array of channel names$/],
    ['a channel with a space', { channels: ['a b'] }, ErrorCode.invalidChannelName, /^invalid channel name "a b" in channels/],
    ['a channel with a dot', { channels: ['a.b'] }, ErrorCode.invalidChannelName, /invalid channel name "a\.b"/],
    ['an empty channel name', { channels: [''] }, ErrorCode.invalidChannelName, /invalid channel name ""/],
    ['a numeric channel', { channels: [1] }, ErrorCode.invalidChannelName, /invalid channel name 1/],
    ['a channel over 128 characters', { channels: ['a'.repeat(129)] }, ErrorCode.invalidChannelName, /invalid channel name/],
  ])('refuses %s', (_title, body, code, message) => {
    expectError(() => read(body), code, message);
  });
});

describe('platforms a query can reach', () => {
  const both: Platform[] = ['ios', 'android'];
  it.each<[string, unknown, Platform[]]>([
    ['no where', undefined, both],
    ['a where without deviceType', { score: 1 }, both],
    ['deviceType ios', { deviceType: 'ios' }, ['ios']],
    ['deviceType android', { deviceType: 'android' }, ['android']],
    ['deviceType $eq ios', { deviceType: { $eq: 'ios' } }, ['ios']],
    ['deviceType $ne ios', { deviceType: { $ne: 'ios' } }, ['android']],
    ['deviceType $in [ios]', { deviceType: { $in: ['ios'] } }, ['ios']],
    ['deviceType $in both', { deviceType: { $in: ['ios', 'android'] } }, both],
    ['deviceType $nin [android]', { deviceType: { $nin: ['android'] } }, ['ios']],
    ['deviceType by regex', { deviceType: { $regex: '^i' } }, ['ios']],
    ['deviceType with $exists', { deviceType: { $exists: true } }, both],
    ['another device type', { deviceType: 'windows' }, []],
    ['deviceType ios inside $and', { $and: [{ deviceType: 'ios' }, { score: 1 }] }, ['ios']],
    ['deviceType ios or android by $or', { $or: [{ deviceType: 'ios' }, { deviceType: 'android' }] }, both],
    ['deviceType ios or a score', { $or: [{ deviceType: 'ios' }, { score: 1 }] }, both],
    ['deviceType ios and a nested $or', { deviceType: 'ios', $or: [{ a: 1 }, { b: 2 }] }, ['ios']],
    ['contradicting deviceTypes', { $and: [{ deviceType: 'ios' }, { deviceType: 'android' }] }, []],
    ['a nested path under deviceType', { 'deviceType.x': 1 }, both],
  ])('%s', (_title, where, platforms) => {
    expect([...target(where === undefined ? {} : { where }).platforms]).toEqual(platforms);
  });

  it('follows the deviceType in a where given as a string', () => {
    expect([...target({ where: '{"deviceType":"ios"}' }).platforms]).toEqual(['ios']);
  });
});
