import { describe, expect, it } from 'vitest';
import { buildMeizuMessage, cutChars, meizuMessageJson, meizuOverrideFields, type MeizuMessageSettings } from '../../../../src/push/gateways/makers/meizu/meizu-message.ts';
import { buildMakerContent } from '../../../../src/push/payload/maker-content.ts';

const settings: MeizuMessageSettings = { defaultTitle: undefined, noticeMsgType: 0 };

/** The messageJson Meizu would get, parsed. */
function sent(data: Record<string, unknown>, ttl: number | null = null, profile: Partial<MeizuMessageSettings> = {}): Record<string, any> { // eslint-disable-line @typescript-eslint/no-explicit-any
  const content = buildMakerContent({ data, androidChannel: null, expiresAt: null }, 'meizu', meizuOverrideFields);
  return JSON.parse(meizuMessageJson(buildMeizuMessage(content, { ...settings, ...profile }), ttl)) as Record<string, unknown>;
}

describe('the Meizu messageJson of a push', () => {
  it('is a notification opening the app, its custom keys as the click parameters, kept offline a day without expiry', () => {
    expect(sent({ alert: 'Your order shipped', title: 'Shop', orderId: 'A-1', count: 2 })).toEqual({
      noticeBarInfo: { noticeMsgType: 0, title: 'Shop', content: 'Your order shipped' },
      clickTypeInfo: { clickType: 0, parameters: { orderId: 'A-1', count: 2 } },
      pushTimeInfo: { offLine: 1, validTime: 24 },
    });
  });

  it('takes the profile\'s default title, else the alert, and the profile\'s message class', () => {
    expect(sent({ alert: 'Body' }, null, { defaultTitle: 'Shop', noticeMsgType: 1 }).noticeBarInfo).toEqual({ noticeMsgType: 1, title: 'Shop', content: 'Body' });
    expect(sent({ alert: 'Body' }).noticeBarInfo.title).toBe('Body');
  });

  it('cuts title and content to Meizu\'s 32 and 100 characters rather than have the push refused', () => {
    const bar = sent({ alert: 'a'.repeat(150), title: 't'.repeat(40) }).noticeBarInfo;
    expect(bar.title).toBe('t'.repeat(32));
    expect(bar.content).toBe('a'.repeat(100));
    expect(sent({ alert: '文'.repeat(101) }).noticeBarInfo.content).toBe('文'.repeat(100));
  });

  it('never splits a character of two UTF-16 units', () => {
    expect(cutChars(`${'a'.repeat(31)}😀`, 32)).toBe('a'.repeat(31));
    expect(cutChars('😀😀', 4)).toBe('😀😀');
    expect(cutChars('abc', 3)).toBe('abc');
  });

  it.each([
    [1, 1],
    [3599, 1],
    [3601, 2],
    [7200, 2],
    [0, 1],
    [10 ** 9, 72],
  ])('keeps a push with %i s left for %i hours', (ttl, hours) => {
    expect(sent({ alert: 'A' }, ttl).pushTimeInfo).toEqual({ offLine: 1, validTime: hours });
  });

  it('writes the request fields of data.mz where Meizu documents them, over Herald\'s mapping, and keeps them out of the parameters', () => {
    const json = sent(
      {
        alert: 'A',
        ref: 1,
        mz: { title: 'Meizu title', noticeMsgType: 1, clickType: 2, url: 'https://shop.example/o/1', notifyKey: 'orders', validTime: 3, extra: { callback: 'https://cb.example/mz' }, message: { advanceInfo: { suspend: 0 } } },
      },
      86400,
    );
    expect(json.noticeBarInfo).toEqual({ noticeMsgType: 1, title: 'Meizu title', content: 'A' });
    expect(json.clickTypeInfo).toEqual({ clickType: 2, url: 'https://shop.example/o/1', parameters: { ref: 1 } });
    expect(json.pushTimeInfo).toEqual({ offLine: 1, validTime: 3 });
    expect(json.advanceInfo).toEqual({ notifyKey: 'orders', suspend: 0 });
    expect(json.extra).toEqual({ callback: 'https://cb.example/mz' });
  });
});
