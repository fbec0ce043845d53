import { describe, expect, it } from 'vitest';
import { buildHonorMessage, honorOverrideFields, honorSendBody, maxHonorTtlSeconds, type HonorMessageSettings } from '../../../../src/push/gateways/makers/honor/honor-message.ts';
import { clickIntent } from '../../../../src/push/gateways/makers/shared/click-intent.ts';
import { buildMakerContent } from '../../../../src/push/payload/maker-content.ts';

const settings: HonorMessageSettings = { intentHost: 'cn.leancloud.push', defaultTitle: undefined, importance: undefined };

function message(data: Record<string, unknown>, profile: Partial<HonorMessageSettings> = {}) {
  const content = buildMakerContent({ data, androidChannel: null, expiresAt: null }, 'honor', honorOverrideFields);
  return buildHonorMessage(content, { ...settings, ...profile });
}

/** The body Honor would get, parsed. */
function sent(data: Record<string, unknown>, tokens: string[] = ['t1'], ttl: number | null = null, profile: Partial<HonorMessageSettings> = {}): Record<string, any> { // eslint-disable-line @typescript-eslint/no-explicit-any
  return JSON.parse(honorSendBody(message(data, profile), tokens, ttl)) as Record<string, unknown>;
}

describe('the Honor message of a push', () => {
  it('is a notification with title, body and the lcpushscheme click intent, the data beside it and the tokens at the top level', () => {
    const data = { alert: 'Your order shipped', title: 'Shop', orderId: 'A-1', count: 2 };
    const body = sent(data, ['t1', 't2']);
    expect(Object.keys(body).sort()).toEqual(['android', 'data', 'token']);
    expect(body.token).toEqual(['t1', 't2']);
    expect(body.data).toBe(JSON.stringify(data));
    expect(body.android).toEqual({
      notification: { title: 'Shop', body: 'Your order shipped', clickAction: { type: 1, intent: clickIntent('cn.leancloud.push', { orderId: 'A-1', count: 2 }) } },
    });
  });

  it('matches the shape of Honor\'s documented examples: camelCase clickAction under android.notification, data as text', () => {
    // Honor's guide: {"android":{"notification":{"title":"test title","body":"test body","clickAction":{"type":3}}},"token":["pushtoken1"]}
    const body = sent({ alert: 'test body', title: 'test title', honor: { message: { android: { notification: { clickAction: { type: 3 } } } } } }, ['pushtoken1']);
    // Laid deep over Herald's click action: the type replaced, the intent kept.
    expect(body.android.notification).toMatchObject({ title: 'test title', body: 'test body', clickAction: { type: 3 } });
    expect(typeof body.data).toBe('string');
  });

  it('takes the profile\'s default title when the push has none, else the alert', () => {
    expect(sent({ alert: 'Body' }, ['t'], null, { defaultTitle: 'Shop' }).android.notification.title).toBe('Shop');
    expect(sent({ alert: 'Body' }).android.notification.title).toBe('Body');
  });

  it('is a pass-through message of the data alone for a silent push, as Honor\'s example: {"data": …, "token": […]}', () => {
    const data = { alert: 'sync', silent: true, since: 5 };
    expect(sent(data, ['pushtoken1'])).toEqual({ data: JSON.stringify(data), token: ['pushtoken1'] });
  });

  it('sets the TTL from the seconds left, within 1 s and 15 days, unless data.honor gives one', () => {
    expect(sent({ alert: 'A' }, ['t'], 90).android.ttl).toBe('90s');
    expect(sent({ alert: 'A' }, ['t'], 0).android.ttl).toBe('1s');
    expect(sent({ alert: 'A' }, ['t'], 10 ** 9).android.ttl).toBe(`${maxHonorTtlSeconds}s`);
    expect(sent({ alert: 'A', honor: { ttl: '60s' } }, ['t'], 90).android.ttl).toBe('60s');
    expect(sent({ alert: 'A', silent: true }, ['t'], 30).android).toEqual({ ttl: '30s' });
  });

  it('writes the request fields of data.honor where Honor documents them, over Herald\'s mapping, and keeps them out of the data', () => {
    const body = sent({
      alert: 'A',
      honor: { targetUserType: 1, biTag: 'campaign', importance: 'NORMAL', title: 'Honor title', message: { android: { notification: { badge: { addNum: 1, badgeClass: 'a.Main' } } }, token: ['stolen'] } },
    });
    expect(body.android).toMatchObject({ targetUserType: 1, biTag: 'campaign' });
    expect(body.android.notification).toMatchObject({ title: 'Honor title', body: 'A', importance: 'NORMAL', badge: { addNum: 1, badgeClass: 'a.Main' } });
    expect(body.token).toEqual(['t1']);
    expect(JSON.parse(body.data)).toEqual({ alert: 'A', title: 'Honor title' });
  });

  it('uses the profile\'s importance unless the push gives its own', () => {
    expect(sent({ alert: 'A' }, ['t'], null, { importance: 'NORMAL' }).android.notification.importance).toBe('NORMAL');
    expect(sent({ alert: 'A', honor: { importance: 'LOW' } }, ['t'], null, { importance: 'NORMAL' }).android.notification.importance).toBe('LOW');
  });

  it('measures the message without its tokens', () => {
    const small = message({ alert: 'A' });
    expect(small.bytes).toBe(Buffer.byteLength(JSON.stringify({ ...small.message, android: small.android })));
    expect(message({ alert: 'A', note: '文'.repeat(1300) }).bytes).toBeGreaterThan(4096);
  });
});
