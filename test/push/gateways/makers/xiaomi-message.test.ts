import { describe, expect, it } from 'vitest';
import {
  buildXiaomiMessage,
  clip,
  maxXiaomiTtlMs,
  xiaomiOverrideFields,
  xiaomiSendBody,
  xiaomiTtlMs,
  type XiaomiMessageSettings,
} from '../../../../src/push/gateways/makers/xiaomi/xiaomi-message.ts';
import { buildMakerContent } from '../../../../src/push/payload/maker-content.ts';

const settings: XiaomiMessageSettings = { packageName: 'com.example.shop', channelId: undefined, defaultTitle: undefined, notifyType: -1 };

function message(data: Record<string, unknown>, options: { channel?: string; profile?: Partial<XiaomiMessageSettings>; notifyId?: number } = {}) {
  const content = buildMakerContent({ data, androidChannel: options.channel ?? null, expiresAt: null }, 'xiaomi', xiaomiOverrideFields);
  return buildXiaomiMessage(content, { ...settings, ...options.profile }, options.notifyId ?? 7);
}

/** The form Xiaomi would get, decoded. */
function sent(data: Record<string, unknown>, regIds: string[] = ['r1'], ttl: number | null = null, options: Parameters<typeof message>[1] = {}): Record<string, string> {
  return Object.fromEntries(new URLSearchParams(xiaomiSendBody(message(data, options), regIds, ttl)));
}

describe('the Mi Push message of a push', () => {
  it('is a notification with title, description, the click that opens the app and the data as payload, to regIds comma-separated', () => {
    const data = { alert: 'Your order shipped', title: 'Shop', orderId: 'A-1&x=y', count: 2 };
    expect(sent(data, ['r1', 'r2'], null, { channel: 'orders' })).toEqual({
      payload: JSON.stringify(data),
      restricted_package_name: 'com.example.shop',
      pass_through: '0',
      title: 'Shop',
      description: 'Your order shipped',
      notify_type: '-1',
      notify_id: '7',
      'extra.notify_effect': '1',
      'extra.channel_id': 'orders',
      registration_id: 'r1,r2',
    });
  });

  it('is form-encoded so that a value cannot add a field', () => {
    const body = xiaomiSendBody(message({ alert: 'a&registration_id=evil', title: 'x=y' }), ['r1'], null);
    expect(body.split('&').filter((pair) => pair.startsWith('registration_id='))).toEqual(['registration_id=r1']);
    expect(new URLSearchParams(body).get('description')).toBe('a&registration_id=evil');
  });

  it.each([
    ['the push\'s title', { alert: 'Body', title: 'Title' }, {}, 'Title'],
    ['the profile\'s default title when the push has none', { alert: 'Body' }, { defaultTitle: 'Shop' }, 'Shop'],
    ['the profile\'s default title when the push\'s is blank', { alert: 'Body', title: '  ' }, { defaultTitle: 'Shop' }, 'Shop'],
    ['the alert without either', { alert: 'Body' }, {}, 'Body'],
  ])('takes %s as the title', (_, data, profile, title) => {
    expect(sent(data, ['r'], null, { profile }).title).toBe(title);
  });

  it('cuts the title below 50 and the description below 128 characters, a Chinese character counting one', () => {
    const form = sent({ alert: '文'.repeat(200), title: 'T'.repeat(60) });
    expect(form.title).toBe(`${'T'.repeat(48)}…`);
    expect([...(form.description ?? '')]).toHaveLength(127);
    expect(form.description?.endsWith('文…')).toBe(true);
    expect(clip('😀'.repeat(60), 49)).toBe(`${'😀'.repeat(48)}…`);
    expect(clip('short', 49)).toBe('short');
  });

  it('takes the channel from the push, else the profile\'s channelId, else none', () => {
    expect(sent({ alert: 'A' }, ['r'], null, { channel: 'orders', profile: { channelId: 'default' } })['extra.channel_id']).toBe('orders');
    expect(sent({ alert: 'A' }, ['r'], null, { profile: { channelId: 'default' } })['extra.channel_id']).toBe('default');
    expect(sent({ alert: 'A' })['extra.channel_id']).toBeUndefined();
  });

  it('is a pass-through message of the payload alone for a silent push', () => {
    const data = { alert: 'sync', silent: true, since: 5 };
    expect(sent(data, ['r1'], null, { channel: 'orders' })).toEqual({
      payload: JSON.stringify(data),
      restricted_package_name: 'com.example.shop',
      pass_through: '1',
      registration_id: 'r1',
    });
  });

  it('sets time_to_live from the seconds left, in milliseconds, within 1 s and two weeks, unless data.mi gives one', () => {
    expect(sent({ alert: 'A' }, ['r'], 90).time_to_live).toBe('90000');
    expect(sent({ alert: 'A' }, ['r'], 0).time_to_live).toBe('1000');
    expect(sent({ alert: 'A' }, ['r'], 10 ** 9).time_to_live).toBe(String(maxXiaomiTtlMs));
    expect(sent({ alert: 'A', mi: { time_to_live: 60000 } }, ['r'], 90).time_to_live).toBe('60000');
    expect(sent({ alert: 'A' }).time_to_live).toBeUndefined();
    expect(xiaomiTtlMs(1.9)).toBe(1000);
  });

  it('writes the request fields of data.mi where Xiaomi documents them, over Herald\'s mapping, and keeps them out of the payload', () => {
    const form = sent({
      alert: 'A',
      android: { title: 'Android title', note: 'all Android' },
      mi: {
        title: 'Mi title',
        notify_type: 1,
        notify_id: 42,
        channel_id: 'im',
        notify_effect: '2',
        intent_uri: 'intent:#Intent;component=com.example.shop/.Main;end',
        extra: { notify_foreground: '0', channel_id: 'overridden by channel_id', jobkey: 'batch-1' },
      },
    });
    expect(form).toMatchObject({
      title: 'Mi title',
      notify_type: '1',
      notify_id: '42',
      'extra.channel_id': 'im',
      'extra.notify_effect': '2',
      'extra.intent_uri': 'intent:#Intent;component=com.example.shop/.Main;end',
      'extra.notify_foreground': '0',
      'extra.jobkey': 'batch-1',
    });
    expect(JSON.parse(form.payload ?? '')).toEqual({ alert: 'A', title: 'Mi title', note: 'all Android' });
  });

  it('cannot name the regIds or the package through data.mi', () => {
    const form = sent({ alert: 'A', mi: { registration_id: 'evil', restricted_package_name: 'com.evil', extra: { registration_id: 'x' } } });
    expect(form.registration_id).toBe('r1');
    expect(form.restricted_package_name).toBe('com.example.shop');
    expect(form['extra.registration_id']).toBe('x');
    // Not a request field: a custom key of the payload.
    expect(JSON.parse(form.payload ?? '')).toMatchObject({ registration_id: 'evil', restricted_package_name: 'com.evil' });
  });

  it('gives each push a notify_id of its own, so that a notification does not replace the previous one', () => {
    const content = buildMakerContent({ data: { alert: 'A' }, androidChannel: null, expiresAt: null }, 'xiaomi', xiaomiOverrideFields);
    const ids = new Set(Array.from({ length: 20 }, () => buildXiaomiMessage(content, settings).fields.get('notify_id')));
    expect(ids.size).toBeGreaterThan(1);
    for (const id of ids) expect(Number(id)).toBeLessThan(2 ** 31);
  });

  it('measures the payload\'s UTF-8 bytes against Xiaomi\'s 4 KB', () => {
    expect(message({ alert: 'A' }).payloadBytes).toBe(Buffer.byteLength('{"alert":"A"}'));
    expect(message({ alert: '文' }).payloadBytes).toBe(Buffer.byteLength('{"alert":"文"}'));
  });
});
