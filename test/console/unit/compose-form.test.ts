import { describe, expect, it } from 'vitest';
import { composePush, emptyComposeForm, readComposeForm } from '../../../src/console/compose/compose-form.ts';
import { previewPayloads, fcmTokenPlaceholder } from '../../../src/console/compose/payload-preview.ts';
import { testApp } from '../../support/test-herald.ts';
import { compileConfig } from '../../../src/config/load-config.ts';
import type { AppConfig } from '../../../src/config/schema.ts';
import { readQueryPush } from '../../../src/push/requests/push-request.ts';
import { buildApnsTemplate } from '../../../src/push/payload/apns-template.ts';
import { buildFcmTemplate } from '../../../src/push/payload/fcm-template.ts';
import { fcmLayers, iosLayers, platformData } from '../../../src/push/payload/platform-data.ts';

const now = Date.parse('2030-01-01T00:00:00.000Z');

describe('the compose form', () => {
  it('becomes the body POST /1.1/push takes: platform layers, channels and options', () => {
    const form = readComposeForm({
      target: 'channels',
      channels: 'news, sports',
      iosTitle: 'Hi',
      iosAlert: 'For iPhones',
      iosBadge: 'Increment',
      androidAlert: 'For Android',
      androidChannel: 'alerts',
      data: '{"article":"42"}',
      prod: 'dev',
      expirationInterval: '3600',
      flowControl: '2000',
      pushTime: '2030-01-02T09:30',
    });
    expect(composePush(form)).toEqual({
      target: 'query',
      body: {
        data: { article: '42', ios: { alert: 'For iPhones', title: 'Hi', badge: 'Increment' }, android: { alert: 'For Android' } },
        prod: 'dev',
        expiration_interval: 3600,
        flow_control: 2000,
        push_time: { __type: 'Date', iso: '2030-01-02T09:30:00.000Z' },
        _notificationChannel: 'alerts',
        channels: ['news', 'sports'],
      },
    });
  });

  it('becomes the body of POST /1.1/push/devices for a device list', () => {
    const form = readComposeForm({ target: 'devices', deviceType: 'android', deviceIds: 'a-1\nb-2\n', androidAlert: 'x', androidSilent: 'on' });
    expect(composePush(form)).toEqual({ target: 'devices', body: { data: { android: { alert: 'x', silent: true } }, prod: 'prod', device_type: 'android', device_ids: ['a-1', 'b-2'] } });
  });

  it.each([
    [{ target: 'query', where: '{"deviceType":' }, 'Query is not valid JSON.'],
    [{ target: 'query', where: '[1]' }, 'Query must be a JSON object.'],
    [{ data: 'nope' }, 'Custom data is not valid JSON.'],
    [{ target: 'channels', channels: ' ' }, 'Name at least one channel, or choose another audience.'],
    [{ expirationInterval: 'soon' }, 'Expires after must be a number.'],
    [{ pushTime: 'tomorrow' }, 'Send at must be a date and time, e.g. 2030-01-31T09:30.'],
  ])('refuses %j: %s', (fields, message) => {
    expect(() => composePush(readComposeForm({ channels: 'news', ...fields }))).toThrow(message);
  });

  it('keeps unexpected values of its choices to their defaults', () => {
    expect(readComposeForm({ target: 'everyone', prod: 'staging', deviceType: 'windows' })).toMatchObject({ target: emptyComposeForm.target, prod: 'prod', deviceType: 'ios' });
  });
});

describe('the payload preview', () => {
  it("is byte for byte what the sender's builders make of each platform's data", () => {
    const compiled = compileConfig({ apps: [testApp()] }).apps[0] as AppConfig;
    // Only the default topic of the APNs block matters to the preview.
    const app: AppConfig = { ...compiled, push: { ...compiled.push, apns: { topic: 'com.example.app' } } };
    const { body } = composePush(readComposeForm({ channels: 'news', iosAlert: 'Hello "you"', iosBadge: '3', androidAlert: 'Hallo', androidChannel: 'news', expirationInterval: '60' }));
    const request = readQueryPush(body, { now, prodHeader: undefined });
    const preview = previewPayloads(request, app, now);
    const apns = buildApnsTemplate({ data: platformData(request.data, iosLayers).data, expiresAt: request.expiresAt });
    expect(preview.apns?.body).toBe(apns.body.toString('utf8'));
    expect(preview.apns?.headers).toEqual([
      ['apns-push-type', 'alert'],
      ['apns-priority', '10'],
      ['apns-topic', 'com.example.app'],
      ['apns-expiration', String(Math.floor((now + 60_000) / 1000))],
    ]);
    const fcm = buildFcmTemplate({ data: platformData(request.data, fcmLayers).data, androidChannel: 'news' });
    expect(preview.fcm?.body).toBe(fcm.bodyFor(fcmTokenPlaceholder, 60).toString('utf8'));
    expect(JSON.parse(preview.fcm?.body ?? '{}').message.android).toEqual({ ttl: '60s', priority: 'high', notification: { body: 'Hallo', channel_id: 'news' } });
  });
});
