import { describe, expect, it } from 'vitest';
import type { LoggedSlice } from '../../../src/core/ports/delivery-log-store.ts';
import { deliveryLogPolicy, type DeliveryLogPolicy } from '../../../src/push/delivery-log/delivery-log-policy.ts';
import { DeliveryLogWriter, loggedSlice } from '../../../src/push/delivery-log/delivery-log-writer.ts';
import { decodeEntries, encodeEntries } from '../../../src/push/delivery-log/entries-codec.ts';
import { deliveryLogBucket, filterMayHold, installationFilter } from '../../../src/push/delivery-log/installation-filter.ts';
import { InstallationRanges } from '../../../src/push/delivery-log/installation-ranges.ts';
import type { DeliveryEvent } from '../../../src/push/outcomes/delivery-event.ts';

const slice = { appId: 'shop', pushId: 'push1', sliceKey: 's0/0', endedAt: 1_764_000_000_000 };

function event(n: number, parts: Partial<DeliveryEvent> = {}): DeliveryEvent {
  return {
    version: 1,
    appId: 'shop',
    pushId: 'push1',
    sliceKey: 's0/0',
    installation: `inst${n}`,
    tokenSuffix: `tok${n}`,
    platform: 'ios',
    gateway: 'apns',
    outcome: 'delivered',
    reason: null,
    unregistered: false,
    status: 200,
    messageId: `id-${n}`,
    attempts: 1,
    latencyMs: n / 10,
    at: slice.endedAt - 1000 + n,
    ...parts,
  };
}

const all: DeliveryLogPolicy = { enabled: true, retentionMs: 7 * 86_400_000, successes: 'all', sampleRate: 0.01 };

describe('the entries codec', () => {
  it('gives back every field of every entry', () => {
    const events = [
      event(1),
      event(2, { installation: null, platform: 'android', gateway: 'fcm', outcome: 'invalidToken', reason: 'UNREGISTERED', unregistered: true, status: 404, messageId: null }),
      event(3, { outcome: 'failed', reason: 'NoApnsCredentials', status: null, messageId: null, attempts: 0, latencyMs: 0, tokenSuffix: null }),
    ];
    expect(decodeEntries(encodeEntries(events), slice)).toEqual(events);
  });

  it('writes the fields entries share once, and again where they change', () => {
    const events = Array.from({ length: 100 }, (_, n) => event(n, { messageId: null, latencyMs: 2, at: slice.endedAt }));
    const blob = encodeEntries(events).toString();
    expect(blob.match(/"apns"/g)).toHaveLength(1);
    expect(decodeEntries(Buffer.from(blob), slice)).toEqual(events);
    const mixed = [event(1), event(2, { status: 410, outcome: 'delivered' }), event(3)];
    expect(encodeEntries(mixed).toString().match(/"apns"/g)).toHaveLength(3);
    expect(decodeEntries(encodeEntries(mixed), slice)).toEqual(mixed);
  });

  it('keeps strings with line breaks, quotes and characters beyond ASCII whole', () => {
    const events = [event(1, { tokenSuffix: 'a\nb"c\\', messageId: 'ü-€-😀', installation: 'in\u2028st' }), event(2, { reason: 'Line\nbreak' })];
    expect(decodeEntries(encodeEntries(events), slice)).toEqual(events);
  });

  it('reads entries stored in the column format of earlier versions', () => {
    const stored = {
      f: 1,
      n: 2,
      b: slice.endedAt - 10,
      i: ['inst1', null],
      t: ['tok1', 'tok2'],
      p: 'ios',
      g: 'apns',
      o: 'delivered',
      r: null,
      u: false,
      s: 200,
      m: ['id-1', 'id-2'],
      a: 1,
      l: [0.5, 1.5],
      at: [0, 10],
    };
    const events = decodeEntries(Buffer.from(JSON.stringify(stored)), slice);
    expect(events).toEqual([
      event(1, { latencyMs: 0.5, at: slice.endedAt - 10 }),
      event(2, { installation: null, latencyMs: 1.5, at: slice.endedAt }),
    ]);
  });

  it('refuses a format it does not know', () => {
    expect(() => decodeEntries(Buffer.from('{"f":9,"b":0}\n'), slice)).toThrow(/unknown format/);
  });

  it('stores nothing for no entries', () => {
    expect(encodeEntries([]).length).toBe(0);
    expect(decodeEntries(Buffer.alloc(0), slice)).toEqual([]);
    expect(decodeEntries(undefined, slice)).toEqual([]);
  });

  it('refuses an entry that comes before any shared fields', () => {
    expect(() => decodeEntries(Buffer.from('{"f":2,"b":0}\n["i","t","m",1,0]\n'), slice)).toThrow('delivery log entry before its shared fields');
  });

  it('keeps a reason far longer than the buffer it starts with, in characters of three bytes', () => {
    const reason = '€'.repeat(40_000);
    const events = [event(1), event(2, { outcome: 'failed', reason, status: 500 }), event(3)];
    expect(decodeEntries(encodeEntries(events), slice)).toEqual(events);
  });
});

describe('the installation filter', () => {
  // Both are stored: range rows already written are read with them, so they must not change.
  it("puts an installation in the bucket of its objectId's FNV-1a hash, as stored", () => {
    expect(['a', 'Ab3dE6gH9j', 'zz9'].map(deliveryLogBucket)).toEqual([44, 2, 36]);
  });

  it('makes the same bytes as the filters already stored', () => {
    expect(installationFilter(['Ab3dE6gH9j', 'Xy7kP2mQ4r']).toString('hex')).toBe('05c040001821008210');
    expect(installationFilter([]).toString('hex')).toBe('050000000000000000');
  });

  it('may hold anything when it has no bits to say otherwise', () => {
    expect(filterMayHold(Buffer.from([5]), 'inst1')).toBe(true);
    expect(filterMayHold(Buffer.alloc(0), 'inst1')).toBe(true);
  });

  it('holds every installation put in it and few others', () => {
    const ids = Array.from({ length: 1000 }, (_, n) => `held${n}`);
    const filter = installationFilter(ids);
    expect(ids.every((id) => filterMayHold(filter, id))).toBe(true);
    const others = Array.from({ length: 10_000 }, (_, n) => `other${n}`).filter((id) => filterMayHold(filter, id));
    expect(others.length).toBeLessThan(500);
    expect(filter.length).toBe(1 + 1000);
  });
});

describe("a slice's installation ranges", () => {
  it('gives each bucket its lowest and highest objectId and the filter of all its installations, however many', () => {
    const ranges = new InstallationRanges();
    const ids = Array.from({ length: 10_000 }, (_, n) => `id${String((n * 7919) % 10_007).padStart(5, '0')}`);
    for (const id of ids) ranges.add(id);
    const made = ranges.ranges();
    expect(made.map((range) => range.bucket).sort((a, b) => a - b)).toEqual([...new Set(ids.map(deliveryLogBucket))].sort((a, b) => a - b));
    for (const range of made) {
      const own = ids.filter((id) => deliveryLogBucket(id) === range.bucket).sort();
      expect(range.low).toBe(own[0]);
      expect(range.high).toBe(own.at(-1));
      expect(range.filter).toEqual(installationFilter(own));
      expect(own.every((id) => filterMayHold(range.filter, id))).toBe(true);
    }
  });
});

describe('the delivery log writer', () => {
  it('keeps each outcome apart, counts every device, and makes a range per installation bucket', () => {
    const events = [
      event(1),
      event(2),
      event(3, { outcome: 'invalidToken', reason: 'BadDeviceToken', status: 400 }),
      event(4, { outcome: 'failed', reason: 'NoApnsCredentials', attempts: 0 }),
      event(5, { installation: null }),
    ];
    const written = loggedSlice(slice, events, all);
    expect(written).toMatchObject({ pushId: 'push1', sliceKey: 's0/0', writtenAt: slice.endedAt, expiresAt: slice.endedAt + all.retentionMs });
    expect(written.counts).toEqual({ delivered: 3, invalidToken: 1, failed: 1 });
    expect(decodeEntries(written.entries.delivered, slice).map((entry) => entry.tokenSuffix)).toEqual(['tok1', 'tok2', 'tok5']);
    expect(decodeEntries(written.entries.invalidToken, slice).map((entry) => entry.installation)).toEqual(['inst3']);
    expect(decodeEntries(written.entries.failed, slice).map((entry) => entry.reason)).toEqual(['NoApnsCredentials']);
    const installations = ['inst1', 'inst2', 'inst3', 'inst4'];
    for (const id of installations) {
      const range = written.ranges.find((candidate) => candidate.bucket === deliveryLogBucket(id));
      expect(range, id).toBeDefined();
      expect(id >= (range?.low ?? '') && id <= (range?.high ?? '')).toBe(true);
      expect(filterMayHold(range?.filter ?? Buffer.alloc(0), id)).toBe(true);
    }
    expect(written.ranges).toHaveLength(new Set(installations.map(deliveryLogBucket)).size);
  });

  it('keeps every failure and no success with successes off', () => {
    const events = [...Array.from({ length: 50 }, (_, n) => event(n)), event(99, { outcome: 'failed', reason: 'Timeout' })];
    const written = loggedSlice(slice, events, { ...all, successes: 'off' });
    expect(written.counts).toEqual({ delivered: 50, invalidToken: 0, failed: 1 });
    expect(written.entries.delivered.length).toBe(0);
    expect(decodeEntries(written.entries.failed, slice)).toHaveLength(1);
    expect(written.ranges.map((range) => range.low)).toEqual(['inst99']);
  });

  it('keeps about the sampled share of successes, the same devices when the slice is redone', () => {
    const events = Array.from({ length: 5000 }, (_, n) => event(n));
    const sampled = { ...all, successes: 'sampled' as const, sampleRate: 0.1 };
    const kept = decodeEntries(loggedSlice(slice, events, sampled).entries.delivered, slice).map((entry) => entry.installation);
    expect(kept.length).toBeGreaterThan(400);
    expect(kept.length).toBeLessThan(600);
    expect(decodeEntries(loggedSlice(slice, events, sampled).entries.delivered, slice).map((entry) => entry.installation)).toEqual(kept);
    const otherPush = decodeEntries(loggedSlice({ ...slice, pushId: 'push2' }, events.map((entry) => ({ ...entry, pushId: 'push2' })), sampled).entries.delivered, slice);
    expect(otherPush.map((entry) => entry.installation)).not.toEqual(kept);
  });

  it('writes one slice per call, and nothing when the log is off or the slice targeted no device', async () => {
    const writes: LoggedSlice[] = [];
    let policy = all;
    const writer = new DeliveryLogWriter({ store: { writeSlice: (_app, written) => Promise.resolve(void writes.push(written)) }, policyOf: () => policy });
    const log = writer.open(slice);
    for (const entry of [event(1), event(2)]) log?.add(entry.installation, entry.tokenSuffix, 'ios', 'apns', 'delivered', null, false, 200, entry.messageId, 1, 1, entry.at);
    await log?.write(slice.endedAt);
    await writer.open(slice)?.write(slice.endedAt);
    expect(writes).toHaveLength(1);
    expect(decodeEntries(writes[0]?.entries.delivered, slice).map((entry) => entry.installation)).toEqual(['inst1', 'inst2']);
    policy = { ...all, enabled: false };
    expect(writer.open(slice)).toBeNull();
  });
});

describe('the delivery log policy', () => {
  const engine = { retentionDays: 7, deliveryLog: { enabled: true, successes: 'all' as const, sampleRate: 0.01 } };

  it("follows push.deliveryLog, with the push records' retention", () => {
    expect(deliveryLogPolicy(engine, undefined)).toEqual({ enabled: true, retentionMs: 7 * 86_400_000, successes: 'all', sampleRate: 0.01 });
  });

  it("takes an app's own choices over it", () => {
    const app = { deliveryLog: { successes: 'sampled' as const, sampleRate: 0.25, retentionDays: 2 } };
    expect(deliveryLogPolicy({ ...engine, deliveryLog: { ...engine.deliveryLog, retentionDays: 3 } }, app)).toEqual({ enabled: true, retentionMs: 2 * 86_400_000, successes: 'sampled', sampleRate: 0.25 });
  });
});
