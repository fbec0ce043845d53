import { describe, expect, it } from 'vitest';
import { buildOppoMessage, cut, maxOppoTtlSeconds, oppoMessages, oppoOverrideFields, oppoSendForm, type OppoMessageSettings } from '../../../../src/push/gateways/makers/oppo/oppo-message.ts';
import { buildMakerContent } from '../../../../src/push/payload/maker-content.ts';

const settings: OppoMessageSettings = {
  channelId: undefined,
  category: undefined,
  notifyLevel: undefined,
  clickActionType: 0,
  clickActionActivity: undefined,
  clickActionUrl: undefined,
  defaultTitle: undefined,
};

function message(data: Record<string, unknown>, options: { channel?: string; profile?: Partial<OppoMessageSettings> } = {}) {
  const content = buildMakerContent({ data, androidChannel: options.channel ?? null, expiresAt: null }, 'oppo', oppoOverrideFields);
  return buildOppoMessage(content, { ...settings, ...options.profile });
}

// Messages are untyped JSON on the wire.
type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

/** The `messages` OPPO would get, parsed. */
function sent(data: Record<string, unknown>, tokens: string[] = ['t1'], ttl: number | null = null, options: Parameters<typeof message>[1] = {}): Json[] {
  return JSON.parse(oppoMessages(message(data, options), tokens, ttl)) as Json[];
}

describe('the OPPO messages of a push', () => {
  it('is one message per registration id, each a notification with title, content, the click action and the custom keys as its parameters', () => {
    const messages = sent({ alert: 'Your order shipped', title: 'Shop', orderId: 'A-1', count: 2, nested: { a: [1] } }, ['CN_r1', 'CN_r2'], null, { channel: 'orders' });
    expect(messages.map((each) => each.target_value)).toEqual(['CN_r1', 'CN_r2']);
    for (const each of messages) {
      expect(each.target_type).toBe(2);
      expect(each.notification).toEqual({
        title: 'Shop',
        content: 'Your order shipped',
        click_action_type: 0,
        action_parameters: JSON.stringify({ orderId: 'A-1', count: '2', nested: '{"a":[1]}' }),
        channel_id: 'orders',
        off_line: true,
      });
      expect(each.verify_registration_id).toBeUndefined();
    }
  });

  it.each([
    ['the push\'s title', { alert: 'Body', title: 'Title' }, {}, 'Title'],
    ['the profile\'s default title', { alert: 'Body' }, { defaultTitle: 'Shop' }, 'Shop'],
    ['the alert when there is neither', { alert: 'Body' }, {}, 'Body'],
  ])('takes %s as the title', (_, data, profile, title) => {
    expect(sent(data, ['t'], null, { profile })[0]?.notification.title).toBe(title);
  });

  it('cuts title and content to OPPO\'s limits, counting each character once, CJK and emoji alike', () => {
    const long = '通'.repeat(60);
    const notification = sent({ alert: long, title: `${'😀'.repeat(49)}xy` })[0]?.notification;
    expect([...notification.title]).toHaveLength(50);
    expect(notification.title).toBe(`${'😀'.repeat(49)}…`);
    expect(notification.content).toBe(`${'通'.repeat(49)}…`);
    // The long-text style takes 128.
    expect(sent({ alert: long, oppo: { style: 2 } })[0]?.notification.content).toBe(long);
    expect(cut('exactly', 7)).toBe('exactly');
  });

  it('takes the channel, category, notify level and click action of the profile, the push\'s channel first', () => {
    const profile = { channelId: 'default-channel', category: 'IM', notifyLevel: 16, clickActionType: 4, clickActionActivity: 'com.example.Main' };
    expect(sent({ alert: 'A' }, ['t'], null, { profile })[0]?.notification).toMatchObject({
      channel_id: 'default-channel',
      category: 'IM',
      notify_level: 16,
      click_action_type: 4,
      click_action_activity: 'com.example.Main',
    });
    expect(sent({ alert: 'A' }, ['t'], null, { profile, channel: 'orders' })[0]?.notification.channel_id).toBe('orders');
    expect(sent({ alert: 'A' }, ['t'], null, { profile: { clickActionType: 2, clickActionUrl: 'https://example.com/a' } })[0]?.notification).toMatchObject({
      click_action_type: 2,
      click_action_url: 'https://example.com/a',
    });
  });

  it('leaves out action_parameters when the push has no custom keys', () => {
    expect(sent({ alert: 'A', title: 'T' })[0]?.notification.action_parameters).toBeUndefined();
  });

  it('writes the fields of data.oppo into the notification over Herald\'s mapping, verify_registration_id into the message, and keeps them out of the parameters', () => {
    const [first] = sent({
      alert: 'Body',
      title: 'Title',
      ref: 1,
      oppo: { title: 'OPPO title', channel_id: 'oppo-channel', click_action_type: 1, click_action_activity: 'com.example.OPEN', off_line: false, notify_id: 7, verify_registration_id: true, extra: 'x' },
    }, ['t'], 90, { channel: 'orders' });
    expect(first?.notification).toMatchObject({
      title: 'OPPO title',
      content: 'Body',
      channel_id: 'oppo-channel',
      click_action_type: 1,
      click_action_activity: 'com.example.OPEN',
      off_line: false,
      notify_id: 7,
      off_line_ttl: 90,
    });
    expect(JSON.parse(first?.notification.action_parameters as string)).toEqual({ ref: '1', extra: 'x' });
    expect(first?.verify_registration_id).toBe(true);
    expect(first?.notification.verify_registration_id).toBeUndefined();
  });

  it('sets off_line_ttl from the seconds left, within 1 s and 10 days, unless data.oppo gives one', () => {
    expect(sent({ alert: 'A' }, ['t'], 90)[0]?.notification.off_line_ttl).toBe(90);
    expect(sent({ alert: 'A' }, ['t'], 0)[0]?.notification.off_line_ttl).toBe(1);
    expect(sent({ alert: 'A' }, ['t'], 10 ** 9)[0]?.notification.off_line_ttl).toBe(maxOppoTtlSeconds);
    expect(sent({ alert: 'A' }, ['t'], null)[0]?.notification.off_line_ttl).toBeUndefined();
    expect(sent({ alert: 'A', oppo: { off_line_ttl: 60 } }, ['t'], 90)[0]?.notification.off_line_ttl).toBe(60);
  });

  it('takes an object as data.oppo.action_parameters as its JSON', () => {
    expect(sent({ alert: 'A', oppo: { action_parameters: { page: 'home' } } })[0]?.notification.action_parameters).toBe('{"page":"home"}');
  });

  it('marks a message whose parameters are over 4000 characters too large to send', () => {
    // {"note":"…"} is 11 characters around the value.
    expect(message({ alert: 'A', note: 'x'.repeat(3990) }).tooLarge).toBe(true);
    expect(message({ alert: 'A', note: 'x'.repeat(3989) }).tooLarge).toBe(false);
  });

  it('keeps a registration id that would break out of its string a string', () => {
    const [first] = JSON.parse(oppoMessages(message({ alert: 'A' }), ['a"},{"target_value":"b'], null)) as Json[];
    expect(first?.target_value).toBe('a"},{"target_value":"b');
  });

  it('is a form of the auth token and the messages', () => {
    const form = new URLSearchParams(oppoSendForm(message({ alert: 'A&B=C' }), ['t1', 't2'], null, 'token+/='));
    expect([...form.keys()]).toEqual(['auth_token', 'messages']);
    expect(form.get('auth_token')).toBe('token+/=');
    expect((JSON.parse(form.get('messages') ?? '') as Json[]).map((each) => each.notification.content)).toEqual(['A&B=C', 'A&B=C']);
  });
});
