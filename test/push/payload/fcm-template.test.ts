import { describe, expect, it } from 'vitest';
import { buildFcmTemplate, fcmPayloadBytes, maxFcmTtlSeconds } from '../../../src/push/payload/fcm-template.ts';

const template = (data: Record<string, unknown>, androidChannel: string | null = null) => buildFcmTemplate({ data, androidChannel });
const parsed = (data: Record<string, unknown>, token = 'tok', ttl: number | null = null, androidChannel: string | null = null): unknown =>
  JSON.parse(template(data, androidChannel).bodyFor(token, ttl).toString('utf8'));

describe('FCM notification messages', () => {
  it('maps alert and title to the notification and the whole data to payload', () => {
    expect(parsed({ alert: 'Hello', title: 'News' })).toEqual({
      message: {
        token: 'tok',
        android: { priority: 'high', notification: { title: 'News', body: 'Hello' } },
        data: { payload: '{"alert":"Hello","title":"News"}' },
      },
    });
  });

  it('writes the exact body, ttl first in android', () => {
    expect(template({ alert: 'Hello' }, 'orders').bodyFor('tok', 60).toString()).toBe(
      '{"message":{"token":"tok","android":{"ttl":"60s","priority":"high","notification":{"body":"Hello","channel_id":"orders"}},"data":{"payload":"{\\"alert\\":\\"Hello\\"}"}}}',
    );
  });

  it('puts action and custom keys in data as strings', () => {
    const data = {
      alert: 'a',
      action: 'com.example.UPDATE',
      text: 'plain',
      n: 3.5,
      yes: true,
      nothing: null,
      list: [1, 'b'],
      obj: { k: { x: 1 } },
      badge: 'Increment',
      silent: false,
    };
    expect(parsed(data)).toEqual({
      message: {
        token: 'tok',
        android: { priority: 'high', notification: { body: 'a' } },
        data: {
          action: 'com.example.UPDATE',
          text: 'plain',
          n: '3.5',
          yes: 'true',
          nothing: 'null',
          list: '[1,"b"]',
          obj: '{"k":{"x":1}}',
          badge: 'Increment',
          payload: JSON.stringify(data),
        },
      },
    });
  });

  it('sets channel_id from the Android channel', () => {
    expect(parsed({ alert: 'a' }, 'tok', null, 'orders')).toMatchObject({
      message: { android: { notification: { body: 'a', channel_id: 'orders' } } },
    });
  });

  it('keeps its own payload over a custom key named payload', () => {
    const data = { alert: 'a', payload: 'mine' };
    expect(template(data).data).toEqual({ payload: '{"alert":"a","payload":"mine"}' });
  });

  it('exposes the notification and data it sends', () => {
    const built = template({ alert: 'a', title: 't', k: 1 }, 'c');
    expect(built.silent).toBe(false);
    expect(built.notification).toEqual({ title: 't', body: 'a', channel_id: 'c' });
    expect(built.data).toEqual({ k: '1', payload: '{"alert":"a","title":"t","k":1}' });
  });
});

describe('FCM silent messages', () => {
  it('sends data only, with alert, title, action and custom keys as strings, at normal priority', () => {
    const data = { alert: 'Sync', title: 'T', silent: true, action: 'com.example.SYNC', since: 12 };
    expect(parsed(data, 'tok', 30, 'orders')).toEqual({
      message: {
        token: 'tok',
        android: { ttl: '30s', priority: 'normal' },
        data: { alert: 'Sync', title: 'T', action: 'com.example.SYNC', since: '12', payload: JSON.stringify(data) },
      },
    });
    expect(template(data).silent).toBe(true);
    expect(template(data).notification).toBeNull();
  });

  it('writes the exact body without a ttl', () => {
    expect(template({ alert: 'x', silent: true }).bodyFor('t', null).toString()).toBe(
      '{"message":{"token":"t","android":{"priority":"normal"},"data":{"alert":"x","payload":"{\\"alert\\":\\"x\\",\\"silent\\":true}"}}}',
    );
  });
});

describe('FCM ttl', () => {
  it.each<[number | null, string | undefined]>([
    [null, undefined],
    [0, '0s'],
    [1, '1s'],
    [59.9, '59s'],
    [86_400, '86400s'],
    [-5, '0s'],
    [maxFcmTtlSeconds, '2419200s'],
    [maxFcmTtlSeconds + 1, '2419200s'],
    [Number.NaN, undefined],
    [Number.POSITIVE_INFINITY, undefined],
  ])('ttl %s gives %s', (ttl, expected) => {
    const body = parsed({ alert: 'a' }, 'tok', ttl) as { message: { android: { ttl?: string } } };
    expect(body.message.android.ttl).toBe(expected);
  });
});

describe('FCM token escaping', () => {
  it.each([
    'tok"en',
    'a\\"b',
    '"},"android":{"priority":"high"},"x":{"',
    'line\nbreak\ttab\u0000nul',
    '\u2028\u2029',
    'lone \ud800 surrogate',
    '令牌',
  ])('keeps %j a single token value', (token) => {
    const body = parsed({ alert: 'a' }, token, 10) as { message: Record<string, unknown> };
    expect(body.message.token).toBe(token);
    expect(Object.keys(body.message)).toEqual(['token', 'android', 'data']);
    expect(body.message.android).toEqual({ ttl: '10s', priority: 'high', notification: { body: 'a' } });
  });

  it('reuses the prebuilt parts for every token', () => {
    const built = template({ alert: 'a' });
    expect(built.bodyFor('one', null).toString()).toBe(built.bodyFor('one', null).toString());
    expect(built.bodyFor('two', null).toString()).toContain('"token":"two"');
  });
});

describe('fcmPayloadBytes', () => {
  it('counts data keys and values and the notification strings', () => {
    const built = template({ alert: 'ab', title: 'c', k: 'é' }, 'ch');
    const payload = '{"alert":"ab","title":"c","k":"é"}';
    expect(fcmPayloadBytes(built)).toBe(1 + 2 + 'payload'.length + Buffer.byteLength(payload) + 1 + 2 + 2);
  });
});
