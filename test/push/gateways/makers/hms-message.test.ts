import { describe, expect, it } from 'vitest';
import { clickIntent } from '../../../../src/push/gateways/makers/shared/click-intent.ts';
import { buildHmsMessage, hmsOverrideFields, hmsSendBody, maxHmsTtlSeconds, type HmsMessageSettings } from '../../../../src/push/gateways/makers/hms/hms-message.ts';
import { buildMakerContent } from '../../../../src/push/payload/maker-content.ts';

const settings: HmsMessageSettings = { intentHost: 'cn.leancloud.push', defaultTitle: undefined, category: undefined };

function message(data: Record<string, unknown>, options: { channel?: string; profile?: Partial<HmsMessageSettings> } = {}) {
  const content = buildMakerContent({ data, androidChannel: options.channel ?? null, expiresAt: null }, 'hms', hmsOverrideFields);
  return buildHmsMessage(content, { ...settings, ...options.profile });
}

/** The body HMS would get, parsed. */
function sent(data: Record<string, unknown>, tokens: string[] = ['t1'], ttl: number | null = null, options: Parameters<typeof message>[1] = {}): Record<string, any> { // eslint-disable-line @typescript-eslint/no-explicit-any
  return JSON.parse(hmsSendBody(message(data, options), tokens, ttl)) as Record<string, unknown>;
}

describe('the HMS message of a push', () => {
  it('is a notification with title, body, the channel and the click intent of the hosted service\'s SDK, the data beside it', () => {
    const data = { alert: 'Your order shipped', title: 'Shop', orderId: 'A-1;x=y', count: 2 };
    const body = sent(data, ['t1', 't2'], null, { channel: 'orders' });
    expect(body.validate_only).toBe(false);
    expect(body.message.token).toEqual(['t1', 't2']);
    expect(body.message.data).toBe(JSON.stringify(data));
    expect(body.message.android.notification).toEqual({
      title: 'Shop',
      body: 'Your order shipped',
      channel_id: 'orders',
      click_action: { type: 1, intent: clickIntent('cn.leancloud.push', { orderId: 'A-1;x=y', count: 2 }) },
    });
    expect(body.message.android.ttl).toBeUndefined();
  });

  it('puts the custom keys, URL-encoded JSON, in the intent\'s fragment where Android reads extras', () => {
    const intent = clickIntent('push.example.com', { a: 'b;c', 中: '文' });
    expect(intent).toBe(
      `intent://push.example.com/notify_detail#Intent;scheme=lcpushscheme;S.content=${encodeURIComponent('{"a":"b;c","中":"文"}')};launchFlags=0x10000000;end`,
    );
    expect(intent.split(';').filter((part) => part.startsWith('S.content='))).toHaveLength(1);
  });

  it('takes the profile\'s default title when the push has none, else the alert', () => {
    expect(sent({ alert: 'Body' }, ['t'], null, { profile: { defaultTitle: 'Shop' } }).message.android.notification.title).toBe('Shop');
    expect(sent({ alert: 'Body' }).message.android.notification.title).toBe('Body');
  });

  it('is a data message alone for a silent push', () => {
    const data = { alert: 'sync', silent: true, since: 5 };
    const body = sent(data);
    expect(body.message.data).toBe(JSON.stringify(data));
    expect(body.message.android.notification).toBeUndefined();
    expect(body.message.notification).toBeUndefined();
  });

  it('sets the TTL from the seconds left, within 1 s and 15 days, unless data.hms gives one', () => {
    expect(sent({ alert: 'A' }, ['t'], 90).message.android.ttl).toBe('90s');
    expect(sent({ alert: 'A' }, ['t'], 0).message.android.ttl).toBe('1s');
    expect(sent({ alert: 'A' }, ['t'], 10 ** 9).message.android.ttl).toBe(`${maxHmsTtlSeconds}s`);
    expect(sent({ alert: 'A', hms: { ttl: '60s' } }, ['t'], 90).message.android.ttl).toBe('60s');
  });

  it('writes the maker fields of data.hms where HMS documents them, over Herald\'s mapping, and keeps them out of the data', () => {
    const body = sent({
      alert: 'A',
      hms: { target_user_type: 1, category: 'IM', importance: 'NORMAL', title: 'Huawei title', message: { android: { notification: { foreground_show: false } }, token: ['stolen'], topic: 'all' } },
    });
    expect(body.message.android).toMatchObject({ target_user_type: 1, category: 'IM' });
    expect(body.message.android.notification).toMatchObject({ title: 'Huawei title', importance: 'NORMAL', foreground_show: false, body: 'A' });
    expect(body.message.token).toEqual(['t1']);
    expect(body.message.topic).toBeUndefined();
    expect(JSON.parse(body.message.data)).toEqual({ alert: 'A', title: 'Huawei title' });
  });

  it('uses the profile\'s category unless the push gives its own', () => {
    expect(sent({ alert: 'A' }, ['t'], null, { profile: { category: 'WORK' } }).message.android.category).toBe('WORK');
    expect(sent({ alert: 'A', hms: { category: 'IM' } }, ['t'], null, { profile: { category: 'WORK' } }).message.android.category).toBe('IM');
  });

  it('measures the message without its tokens against HMS\'s 4096 bytes', () => {
    const small = message({ alert: 'A' });
    expect(small.bytes).toBe(Buffer.byteLength(JSON.stringify({ ...small.message, android: small.android })));
    // The intent's URL-encoding triples each byte of a CJK custom key: 1,300 characters make a message over 4096 bytes.
    expect(message({ alert: 'A', note: '文'.repeat(1300) }).bytes).toBeGreaterThan(4096);
  });
});
