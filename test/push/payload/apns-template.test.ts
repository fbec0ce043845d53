import { describe, expect, it } from 'vitest';
import { apnsPayload } from '../../../src/push/payload/apns-payload.ts';
import { buildApnsTemplate, nextBadge } from '../../../src/push/payload/apns-template.ts';

const template = (data: Record<string, unknown>, expiresAt: number | null = null) => buildApnsTemplate({ data, expiresAt });
const body = (data: Record<string, unknown>): string => template(data).body.toString('utf8');

describe('APNs body', () => {
  it.each<[string, Record<string, unknown>, string]>([
    ['a string alert', { alert: 'Hello' }, '{"aps":{"alert":"Hello"}}'],
    ['a JSON string alert, sent as text', { alert: '{"a":1}' }, '{"aps":{"alert":"{\\"a\\":1}"}}'],
    ['an alert with a title', { alert: 'Hello', title: 'News' }, '{"aps":{"alert":{"title":"News","body":"Hello"}}}'],
    [
      'an alert object, kept as given',
      { alert: { title: 'T', 'loc-key': 'K', 'loc-args': ['a'] } },
      '{"aps":{"alert":{"title":"T","loc-key":"K","loc-args":["a"]}}}',
    ],
    ['an alert object without a title, given one by title', { alert: { body: 'B' }, title: 'T' }, '{"aps":{"alert":{"title":"T","body":"B"}}}'],
    ['an alert object keeping its own title over title', { alert: { title: 'Own', body: 'B' }, title: 'T' }, '{"aps":{"alert":{"title":"Own","body":"B"}}}'],
    ['a numeric badge, first in aps', { alert: 'a', badge: 3 }, '{"aps":{"badge":3,"alert":"a"}}'],
    ['badge 0', { badge: 0, alert: 'a' }, '{"aps":{"badge":0,"alert":"a"}}'],
    ['a sound name', { alert: 'a', sound: 'ping.caf' }, '{"aps":{"alert":"a","sound":"ping.caf"}}'],
    [
      'a critical sound object',
      { alert: 'a', sound: { name: 'alarm.caf', critical: true, volume: 0.8 } },
      '{"aps":{"alert":"a","sound":{"critical":1,"name":"alarm.caf","volume":0.8}}}',
    ],
    ['a sound object that is not critical, without a name', { alert: 'a', sound: { critical: false } }, '{"aps":{"alert":"a","sound":{"name":"default"}}}'],
    [
      'every aps key in order, with custom keys after aps',
      {
        custom: { deep: [1, null] },
        'url-args': ['x'],
        'target-content-id': 'tc',
        'mutable-content': 1,
        'content-available': 1,
        'thread-id': 'th',
        category: 'cat',
        sound: 's',
        badge: 2,
        alert: 'a',
        n: 5,
      },
      '{"aps":{"badge":2,"alert":"a","sound":"s","category":"cat","thread-id":"th","content-available":1,"mutable-content":1,"target-content-id":"tc","url-args":["x"]},"custom":{"deep":[1,null]},"n":5}',
    ],
    ['url-args given as a string, sent as a list', { alert: 'a', 'url-args': 'x' }, '{"aps":{"alert":"a","url-args":["x"]}}'],
    ['header keys left out', { alert: 'a', 'collapse-id': 'c', 'apns-priority': 5, 'apns-push-type': 'alert' }, '{"aps":{"alert":"a"}}'],
    ['Android keys kept as custom keys', { alert: 'a', silent: true, action: 'x' }, '{"aps":{"alert":"a"},"silent":true,"action":"x"}'],
    ['custom keys with _ and $', { alert: 'a', _x: 1, $y: 2 }, '{"aps":{"alert":"a"},"_x":1,"$y":2}'],
    [
      'the aps form, passed through with custom keys',
      { aps: { alert: { title: 't', body: 'b' }, 'interruption-level': 'active' }, 'apns-priority': 10, 'collapse-id': 'c', custom: 1, title: 'kept' },
      '{"aps":{"alert":{"title":"t","body":"b"},"interruption-level":"active"},"custom":1,"title":"kept"}',
    ],
    ['the aps form, badge moved first', { custom: 1, aps: { alert: 'a', badge: 4 } }, '{"aps":{"badge":4,"alert":"a"},"custom":1}'],
    [
      'the aps form, a sound object normalised',
      { aps: { sound: { critical: true, volume: 1 } } },
      '{"aps":{"sound":{"critical":1,"name":"default","volume":1}}}',
    ],
    ['the aps form, a silent background push', { aps: { 'content-available': 1 } }, '{"aps":{"content-available":1}}'],
  ])('%s', (_title, data, expected) => {
    expect(body(data)).toBe(expected);
    expect(JSON.parse(body(data))).toEqual(apnsPayload(data));
  });

  it('keeps a custom key named __proto__ as data', () => {
    const data = JSON.parse('{"alert":"a","__proto__":{"polluted":true}}') as Record<string, unknown>;
    expect(body(data)).toBe('{"aps":{"alert":"a"},"__proto__":{"polluted":true}}');
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it('does not change the data it was given', () => {
    const data = { alert: 'a', title: 't', badge: 'Increment', sound: { critical: true }, 'url-args': 'x' };
    const copy = structuredClone(data);
    template(data);
    expect(data).toEqual(copy);
  });
});

describe('badge Increment', () => {
  const data = { alert: 'Hello', title: 'T', badge: 'Increment', sound: { name: 'a.caf', critical: true }, custom: { badge: 0 }, tail: 'x' };
  const built = template(data);

  it('is flagged, and the body carries badge 1', () => {
    expect(built.incrementBadge).toBe(true);
    expect(built.body.toString()).toBe(
      '{"aps":{"badge":1,"alert":{"title":"T","body":"Hello"},"sound":{"critical":1,"name":"a.caf"}},"custom":{"badge":0},"tail":"x"}',
    );
  });

  it.each([0, 1, 9, 10, 99, 12345, 2_147_483_647, Number.MAX_SAFE_INTEGER])('splices %i as a full re-serialisation would write it', (badge) => {
    const spliced = built.withBadge(badge);
    const expected = apnsPayload(data);
    expected.aps.badge = badge;
    expect(JSON.parse(spliced.toString())).toEqual(expected);
    expect(spliced.toString()).toBe(JSON.stringify(expected));
  });

  it('splices into a body with multi-byte characters', () => {
    const unicode = template({ alert: '你好 👋', badge: 'Increment', note: 'é' });
    expect(unicode.withBadge(42).toString('utf8')).toBe('{"aps":{"badge":42,"alert":"你好 👋"},"note":"é"}');
  });

  it('is not flagged for a numeric badge, which withBadge can still replace', () => {
    const numeric = template({ alert: 'a', badge: 3 });
    expect(numeric.incrementBadge).toBe(false);
    expect(numeric.body.toString()).toBe('{"aps":{"badge":3,"alert":"a"}}');
    expect(numeric.withBadge(8).toString()).toBe('{"aps":{"badge":8,"alert":"a"}}');
  });

  it('adds a badge with withBadge when data has none', () => {
    expect(template({ alert: 'a' }).withBadge(2).toString()).toBe('{"aps":{"badge":2,"alert":"a"}}');
  });

  it('works in the aps form', () => {
    const apsForm = template({ aps: { alert: 'a', badge: 'Increment' }, c: 1 });
    expect(apsForm.incrementBadge).toBe(true);
    expect(apsForm.withBadge(5).toString()).toBe('{"aps":{"badge":5,"alert":"a"},"c":1}');
  });

  it.each([-1, 1.5, Number.NaN, Number.POSITIVE_INFINITY, 2 ** 53])('refuses badge %d', (badge) => {
    expect(() => built.withBadge(badge)).toThrow(new RangeError(`badge must be a non-negative integer, got ${badge}`));
  });

  it.each<[unknown, number]>([
    [undefined, 1],
    [null, 1],
    [0, 1],
    [4, 5],
    ['4', 1],
    [-2, 1],
    [1.5, 1],
  ])('nextBadge(%j) is %i', (stored, expected) => {
    expect(nextBadge(stored)).toBe(expected);
  });
});

describe('APNs headers', () => {
  it.each<[string, Record<string, unknown>, { pushType: string; priority: 5 | 10; collapseId: string | null }]>([
    ['an alert push', { alert: 'a' }, { pushType: 'alert', priority: 10, collapseId: null }],
    ['given priority 5', { alert: 'a', 'apns-priority': 5 }, { pushType: 'alert', priority: 5, collapseId: null }],
    ['a collapse-id', { alert: 'a', 'collapse-id': 'score' }, { pushType: 'alert', priority: 10, collapseId: 'score' }],
    ['given type background', { alert: 'a', 'apns-push-type': 'background' }, { pushType: 'background', priority: 5, collapseId: null }],
    ['given type voip', { alert: 'a', 'apns-push-type': 'voip' }, { pushType: 'voip', priority: 10, collapseId: null }],
    ['content-available with an alert', { alert: 'a', 'content-available': 1 }, { pushType: 'alert', priority: 10, collapseId: null }],
    ['a silent push in the aps form', { aps: { 'content-available': 1 } }, { pushType: 'background', priority: 5, collapseId: null }],
    ['a silent push with a badge', { aps: { 'content-available': 1, badge: 1 } }, { pushType: 'alert', priority: 10, collapseId: null }],
    ['a silent push with a sound', { aps: { 'content-available': 1, sound: 'a' } }, { pushType: 'alert', priority: 10, collapseId: null }],
    ['a silent push asking for priority 10', { aps: { 'content-available': 1 }, 'apns-priority': 10 }, { pushType: 'alert', priority: 10, collapseId: null }],
    ['a silent push asking for type alert', { aps: { 'content-available': 1 }, 'apns-push-type': 'alert' }, { pushType: 'alert', priority: 10, collapseId: null }],
  ])('%s', (_title, data, expected) => {
    const built = template(data);
    expect({ pushType: built.pushType, priority: built.priority, collapseId: built.collapseId }).toEqual(expected);
  });

  it.each<[number | null, number | null]>([
    [null, null],
    [Date.parse('2026-03-01T12:00:00.000Z'), 1772366400],
    [Date.parse('2026-03-01T12:00:00.999Z'), 1772366400],
  ])('expiresAt %s gives apns-expiration %s', (expiresAt, expected) => {
    expect(template({ alert: 'a' }, expiresAt).expiration).toBe(expected);
  });
});
