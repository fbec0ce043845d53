import { describe, expect, it } from 'vitest';
import {
  buildVivoMessage,
  cutWidth,
  maxVivoTtlSeconds,
  vivoOverrideFields,
  vivoPushToListBody,
  vivoSaveListBody,
  vivoSendBody,
  type VivoMessageSettings,
} from '../../../../src/push/gateways/makers/vivo/vivo-message.ts';
import { buildMakerContent } from '../../../../src/push/payload/maker-content.ts';

const settings: VivoMessageSettings = {
  appId: '10004',
  classification: 0,
  category: undefined,
  notifyType: 4,
  skipType: 1,
  skipContent: undefined,
  pushMode: 0,
  defaultTitle: undefined,
};

function message(data: Record<string, unknown>, profile: Partial<VivoMessageSettings> = {}) {
  const content = buildMakerContent({ data, androidChannel: null, expiresAt: null }, 'vivo', vivoOverrideFields);
  return buildVivoMessage(content, { ...settings, ...profile });
}

// Bodies are untyped JSON on the wire.
type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

/** The `/message/send` body vivo would get, parsed. */
function single(data: Record<string, unknown>, ttl: number | null = null, profile: Partial<VivoMessageSettings> = {}): Json {
  return JSON.parse(vivoSendBody(message(data, profile), '12345678901234567890123', 'request-1', ttl)) as Json;
}

describe('the vivo message of a push', () => {
  it('is a notification with the App ID, title, content, click, class, the custom keys as clientCustomMap, and the regId and requestId', () => {
    expect(single({ alert: 'Your order shipped', title: 'Shop', orderId: 'A-1', count: 2, nested: { a: [1] } })).toEqual({
      appId: 10004,
      notifyType: 4,
      title: 'Shop',
      content: 'Your order shipped',
      skipType: 1,
      classification: 0,
      clientCustomMap: { orderId: 'A-1', count: '2', nested: '{"a":[1]}' },
      pushMode: 0,
      regId: '12345678901234567890123',
      requestId: 'request-1',
    });
  });

  it.each([
    ['the push\'s title', { alert: 'Body', title: 'Title' }, {}, 'Title'],
    ['the profile\'s default title', { alert: 'Body' }, { defaultTitle: 'Shop' }, 'Shop'],
    ['the alert when there is neither', { alert: 'Body' }, {}, 'Body'],
  ])('takes %s as the title', (_, data, profile, title) => {
    expect(single(data, null, profile).title).toBe(title);
  });

  it('cuts title and content to vivo\'s widths, a CJK character counting two and any other one', () => {
    expect(cutWidth('a'.repeat(40), 40)).toBe('a'.repeat(40));
    expect(cutWidth('a'.repeat(41), 40)).toBe(`${'a'.repeat(39)}…`);
    expect(cutWidth('通'.repeat(20), 40)).toBe('通'.repeat(20));
    expect(cutWidth('通'.repeat(21), 40)).toBe(`${'通'.repeat(19)}…`);
    expect(cutWidth('😀'.repeat(40), 40)).toBe('😀'.repeat(40));
    const body = single({ alert: '内'.repeat(60), title: '标'.repeat(30) });
    expect(body.title).toBe(`${'标'.repeat(19)}…`);
    expect(body.content).toBe(`${'内'.repeat(49)}…`);
  });

  it('takes the click, class, category, notify type and push mode of the profile', () => {
    const profile = { skipType: 4, skipContent: 'intent://cn.leancloud.push/detail#Intent;scheme=mixpushscheme;launchFlags=0x10000000;end', classification: 1, category: 'IM', notifyType: 2, pushMode: 1 };
    expect(single({ alert: 'A' }, null, profile)).toMatchObject(profile);
  });

  it('leaves out clientCustomMap when the push has no custom keys', () => {
    expect(single({ alert: 'A', title: 'T' }).clientCustomMap).toBeUndefined();
  });

  it('writes the fields of data.vivo over Herald\'s mapping and keeps them out of clientCustomMap, with title and alert as for every maker', () => {
    const body = single({
      alert: 'Body',
      title: 'Title',
      ref: 1,
      vivo: { title: 'For vivo', alert: 'vivo body', pushMode: 1, classification: 1, category: 'ORDER', notifyId: 9, extra: { callback: 'https://example.com/cb' }, key1: 'v1' },
    });
    expect(body).toMatchObject({ title: 'For vivo', content: 'vivo body', pushMode: 1, classification: 1, category: 'ORDER', notifyId: 9, extra: { callback: 'https://example.com/cb' } });
    expect(body.clientCustomMap).toEqual({ ref: '1', key1: 'v1' });
  });

  it('sets timeToLive from the seconds left within vivo\'s bounds (60 s for one regId, 900 s for a list, 7 days), unless data.vivo gives one', () => {
    expect(single({ alert: 'A' }, 600).timeToLive).toBe(600);
    expect(single({ alert: 'A' }, 10).timeToLive).toBe(60);
    expect(single({ alert: 'A' }, 10 ** 9).timeToLive).toBe(maxVivoTtlSeconds);
    expect(single({ alert: 'A' }, null).timeToLive).toBeUndefined();
    expect(single({ alert: 'A', vivo: { timeToLive: 120 } }, 600).timeToLive).toBe(120);
    expect(JSON.parse(vivoSaveListBody(message({ alert: 'A' }), 'r', 600)).timeToLive).toBe(900);
  });

  it('saves the message for a list send without regIds, and sends the list with the taskId, the App ID and the push mode', () => {
    const built = message({ alert: 'A', ref: 1, vivo: { pushMode: 1 } });
    const saved = JSON.parse(vivoSaveListBody(built, 'save-1', null)) as Json;
    expect(saved).toMatchObject({ appId: 10004, title: 'A', content: 'A', clientCustomMap: { ref: '1' }, requestId: 'save-1', pushMode: 1 });
    expect(saved.regId).toBeUndefined();
    expect(JSON.parse(vivoPushToListBody(built, ['r1', 'r2'], 'task-9', 'list-1'))).toEqual({ appId: 10004, regIds: ['r1', 'r2'], taskId: 'task-9', requestId: 'list-1', pushMode: 1 });
  });

  it('marks a message whose custom keys are over ten pairs or 1024 characters too large to send', () => {
    const ten = Object.fromEntries(Array.from({ length: 10 }, (_, n) => [`k${n}`, 'v']));
    expect(message({ alert: 'A', ...ten }).tooLarge).toBe(false);
    expect(message({ alert: 'A', ...ten, k10: 'v' }).tooLarge).toBe(true);
    // Keys and values, 1024 characters in all.
    expect(message({ alert: 'A', note: 'x'.repeat(1020) }).tooLarge).toBe(false);
    expect(message({ alert: 'A', note: 'x'.repeat(1021) }).tooLarge).toBe(true);
  });
});
