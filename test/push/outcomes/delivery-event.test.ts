import { describe, expect, it } from 'vitest';
import { deliveryEventId, deliveryEventJson, eventOutcomeOf, tokenSuffixOf, type DeliveryEvent } from '../../../src/push/outcomes/delivery-event.ts';
import { DeliveryEventSinks } from '../../../src/push/outcomes/delivery-event-sinks.ts';
import type { DeliverySlice } from '../../../src/push/outcomes/delivery-events.ts';
import { deliveryEvent } from './support/outcome-fixtures.ts';

const event: DeliveryEvent = deliveryEvent(1, {
  sliceKey: 's3/0',
  tokenSuffix: 'a1b2c3d4',
  messageId: '6f1c0000-0000-4000-8000-000000000001',
  latencyMs: 12.5,
  at: Date.UTC(2026, 10, 27, 12, 0, 0, 123),
});
describe('the delivery event', () => {
  it('has a JSON form with every field and an ISO time', () => {
    expect(deliveryEventJson(event)).toEqual({ ...event, at: '2026-11-27T12:00:00.123Z' });
  });

  it('is identified by push, slice and installation, or the token suffix for a device without one', () => {
    expect(deliveryEventId(event)).toBe('p1/s3/0/inst1');
    expect(deliveryEventId({ ...event, installation: null })).toBe('p1/s3/0/~a1b2c3d4');
  });

  it('names the gateway outcomes as the log does', () => {
    expect(['delivered', 'invalid-token', 'failed', 'retry'].map((kind) => eventOutcomeOf(kind as never))).toEqual(['delivered', 'invalidToken', 'failed', 'failed']);
  });

  it('keeps only the last 8 characters of a token', () => {
    expect(tokenSuffixOf('0123456789abcdef')).toBe('89abcdef');
    expect(tokenSuffixOf('short')).toBe('short');
  });
});

describe('several sinks', () => {
  it('hands each slice to every sink and waits for all of them', async () => {
    const seen: string[] = [];
    const sink = (name: string, ms: number) => ({
      record: async (slice: DeliverySlice, events: readonly DeliveryEvent[]) => {
        await new Promise((resolve) => setTimeout(resolve, ms));
        seen.push(`${name}:${slice.sliceKey}:${events.length}`);
      },
    });
    const sinks = new DeliveryEventSinks([sink('log', 20), sink('stream', 0)]);
    await sinks.record({ appId: 'shop', pushId: 'p1', sliceKey: 's3/0', endedAt: 0 }, [event, event]);
    expect(seen.sort()).toEqual(['log:s3/0:2', 'stream:s3/0:2']);
  });

  it('fails the slice when a sink rejects', async () => {
    const sinks = new DeliveryEventSinks([{ record: () => Promise.reject(new Error('store away')) }, { record: () => Promise.resolve() }]);
    await expect(sinks.record({ appId: 'shop', pushId: 'p1', sliceKey: 's3/0', endedAt: 0 }, [event])).rejects.toThrow('store away');
  });
});
