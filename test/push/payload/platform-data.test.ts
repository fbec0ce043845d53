import { describe, expect, it } from 'vitest';
import { buildMakerContent } from '../../../src/push/payload/maker-content.ts';
import { fcmLayers, iosLayers, makerLayers, platformData } from '../../../src/push/payload/platform-data.ts';

describe('platformData', () => {
  it('answers data without platform keys as it is, so such pushes build what they did before', () => {
    const data = { alert: 'Hi', title: 'T', count: 3, nested: { android: 1 } };
    expect(platformData(data, fcmLayers).data).toBe(data);
  });

  it('leaves every platform key out and lays the platform\'s layers over the rest, the later winning', () => {
    const data = {
      alert: 'Body default',
      title: 'Title default',
      keep: 1,
      android: { title: 'Android title', shared: 'android' },
      hms: { title: 'Title for huawei', only: 'hms' },
      mi: { title: 'Title for xiaomi' },
      ios: { alert: { title: 'iOS' } },
    };
    expect(platformData(data, makerLayers('hms')).data).toEqual({ alert: 'Body default', title: 'Title for huawei', keep: 1, shared: 'android', only: 'hms' });
    expect(platformData(data, makerLayers('xiaomi')).data).toEqual({ alert: 'Body default', title: 'Title for xiaomi', keep: 1, shared: 'android' });
    expect(platformData(data, fcmLayers).data).toEqual({ alert: 'Body default', title: 'Android title', keep: 1, shared: 'android' });
    expect(platformData(data, iosLayers).data).toEqual({ alert: { title: 'iOS' }, title: 'Title default', keep: 1 });
  });

  it('lays a layer one level deep: an object of the layer replaces the base\'s', () => {
    const data = { alert: 'A', extra: { a: 1, b: 2 }, vivo: { extra: { a: 9 } } };
    expect(platformData(data, makerLayers('vivo')).data).toEqual({ alert: 'A', extra: { a: 9 } });
  });

  it('takes the gateway\'s own fields out of its layer only, and ignores platform keys inside a layer', () => {
    const fields = new Set(['target_user_type']);
    const data = { alert: 'A', android: { target_user_type: 'from android' }, hms: { target_user_type: 1, custom: 'x', fcm: { title: 'nested' } } };
    const { data: merged, fields: taken } = platformData(data, makerLayers('hms'), fields);
    expect(taken).toEqual({ target_user_type: 1 });
    expect(merged).toEqual({ alert: 'A', target_user_type: 'from android', custom: 'x' });
  });

  it('keeps a key named __proto__ as data, never as a prototype', () => {
    const data = JSON.parse('{"alert":"A","hms":{"__proto__":{"polluted":true}}}') as Record<string, unknown>;
    const merged = platformData(data, makerLayers('hms')).data;
    expect(Object.getPrototypeOf(merged)).toBe(Object.prototype);
    expect(Object.hasOwn(merged, '__proto__')).toBe(true);
  });
});

describe('buildMakerContent', () => {
  it('reads alert, title, silent and action of the maker\'s view and keeps the rest as custom keys', () => {
    const content = buildMakerContent(
      { data: { alert: 'A', title: 'T', action: 'com.x.OPEN', n: 2, hms: { silent: true, bi_tag: 'b' } }, androidChannel: 'orders', expiresAt: 1000 },
      'hms',
      new Set(['bi_tag']),
    );
    expect(content).toMatchObject({ alert: 'A', title: 'T', action: 'com.x.OPEN', silent: true, custom: { n: 2 }, fields: { bi_tag: 'b' }, channel: 'orders', expiresAt: 1000 });
    expect(content.data).toEqual({ alert: 'A', title: 'T', action: 'com.x.OPEN', n: 2, silent: true });
  });
});
