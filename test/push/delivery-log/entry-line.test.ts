import { describe, expect, it } from 'vitest';
import { decodeEntries, encodeEntries } from '../../../src/push/delivery-log/entries-codec.ts';
import { entryLineBound, writeEntryLine } from '../../../src/push/delivery-log/entry-line.ts';
import type { DeliveryEvent } from '../../../src/push/outcomes/delivery-event.ts';

const row = { appId: 'shop', pushId: 'push1', sliceKey: 's0/0' };

/** A seeded generator, so that a failure can be run again. */
function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (Math.imul(state, 1_664_525) + 1_013_904_223) >>> 0;
    return state / 4_294_967_296;
  };
}

function line(installation: string | null, token: string | null, messageId: string | null, latencyMs: number, offset: number): string | null {
  const buffer = Buffer.alloc(entryLineBound(installation, messageId));
  const end = writeEntryLine(buffer, 0, installation, token, messageId, latencyMs, offset);
  return end < 0 ? null : buffer.toString('utf8', 0, end);
}

describe("a delivery log entry's line", () => {
  it('is byte for byte what JSON.stringify makes of the entry, the token cut to its suffix', () => {
    const token = 'a'.repeat(56) + '0123abcd';
    expect(line('Xy12AbCd34', token, '3F2504E0-4F89-11D3-9A0C-0305E82C3301', 12.3, 1500)).toBe(`${JSON.stringify(['Xy12AbCd34', '0123abcd', '3F2504E0-4F89-11D3-9A0C-0305E82C3301', 12.3, 1500])}\n`);
    expect(line(null, 'short', null, 0, 0)).toBe(`${JSON.stringify([null, 'short', null, 0, 0])}\n`);
    expect(line('i', null, 'm', 100_000.1, 86_400_000)).toBe(`${JSON.stringify(['i', null, 'm', 100_000.1, 86_400_000])}\n`);
    expect(line('i', 't', 'm', 7, 9_007_199_254_740_991)).toBe(`${JSON.stringify(['i', 't', 'm', 7, 9_007_199_254_740_991])}\n`);
  });

  it('leaves to JSON.stringify what it would have to escape or cannot write exactly', () => {
    expect(line('a"b', 't', 'm', 1, 1)).toBeNull();
    expect(line('a\\b', 't', 'm', 1, 1)).toBeNull();
    expect(line('i', 't\n', 'm', 1, 1)).toBeNull();
    expect(line('i', 't', 'ü', 1, 1)).toBeNull();
    expect(line('i', 't', 'm', 0.25, 1)).toBeNull();
    expect(line('i', 't', 'm', -1, 1)).toBeNull();
    expect(line('i', 't', 'm', 1, 1.5)).toBeNull();
    expect(line('i', 't', 'm', 1, -3)).toBeNull();
    expect(line('i', 't', 'm', -0.5, 1)).toBeNull();
    expect(line('i', 't', 'm', -2, 1)).toBeNull();
    // Only the suffix is written, so what the token holds before it does not matter.
    expect(line('i', '"\\ü\n' + 'abcdefgh', 'm', 1, 1)).toBe(`${JSON.stringify(['i', 'abcdefgh', 'm', 1, 1])}\n`);
  });

  it('gives back every entry, whichever way it was written (2,000 random entries)', () => {
    const next = random(20_261_128);
    const pick = <T>(values: readonly T[]): T => values[Math.floor(next() * values.length)] as T;
    const text = (): string | null =>
      pick([null, 'Ab3dE6gH9j', `id${Math.floor(next() * 1e9)}`, 'q"uote', 'back\\slash', 'line\nbreak', 'tab\there', 'ünï', '€😀', '\u2028', '', '\u0000x']);
    const base = 1_764_000_000_000;
    const events: DeliveryEvent[] = Array.from({ length: 2000 }, (_, index) => {
      const token = text();
      return {
        version: 1,
        ...row,
        installation: text(),
        tokenSuffix: token === null ? null : token.length <= 8 ? token : token.slice(-8),
        platform: pick(['ios', 'android'] as const),
        gateway: pick(['apns', 'fcm', 'hms'] as const),
        outcome: pick(['delivered', 'invalidToken', 'failed'] as const),
        reason: pick([null, 'BadDeviceToken', 'Timeout']),
        unregistered: next() < 0.1,
        status: pick([null, 200, 410]),
        messageId: text(),
        attempts: pick([0, 1, 3]),
        latencyMs: pick([Math.round(next() * 50_000) / 10, next() * 100, Math.floor(next() * 100), 0]),
        at: base + (index === 0 ? 0 : pick([Math.floor(next() * 10_000), next() * 10_000])),
      };
    });
    expect(decodeEntries(encodeEntries(events), row)).toEqual(events);
  });
});
