import { describe, expect, it } from 'vitest';
import { ErrorCode, HeraldError } from '../../../src/core/errors.ts';
import { checkPayloadSize } from '../../../src/push/payload/payload-size.ts';
import { readDevicePush, readQueryPush, type PushRequest } from '../../../src/push/requests/push-request.ts';
import { captureError } from '../../support/capture-error.ts';

const context = { now: Date.parse('2026-03-01T12:00:00.000Z'), prodHeader: undefined };
const iosToken = 'ab'.repeat(32);
const toIos = (data: Record<string, unknown>): PushRequest => readDevicePush({ device_type: 'ios', device_ids: [iosToken], data }, context);
const toAndroid = (data: Record<string, unknown>): PushRequest => readDevicePush({ device_type: 'android', device_ids: ['a'], data }, context);

/** `{"aps":{"alert":"…"}}` is 20 bytes around the alert text. */
const alertOfApnsBytes = (bytes: number): string => 'x'.repeat(bytes - 20);

function expectTooLarge(run: () => unknown, message: RegExp): void {
  const error = captureError(run);
  expect(error).toBeInstanceOf(HeraldError);
  expect((error as HeraldError).code).toBe(ErrorCode.internal);
  expect((error as HeraldError).status).toBe(400);
  expect((error as HeraldError).message).toMatch(message);
}

describe('payload size at request time', () => {
  it('accepts an APNs payload of exactly 4096 bytes', () => {
    expect(toIos({ alert: alertOfApnsBytes(4096) }).data.alert).toHaveLength(4076);
  });

  it('refuses an APNs payload of 4097 bytes', () => {
    expectTooLarge(() => toIos({ alert: alertOfApnsBytes(4097) }), /^data is too large for iOS devices: the APNs payload would be 4097 bytes, at most 4096$/);
  });

  it('counts multi-byte characters as bytes', () => {
    expectTooLarge(() => toIos({ alert: '通'.repeat(1400) }), /APNs payload would be 4220 bytes/);
  });

  it('allows 5120 bytes for a VoIP push', () => {
    // `{"aps":{"alert":"…"}}` plus nothing else: the header key stays out of the body.
    expect(() => toIos({ alert: alertOfApnsBytes(5120), 'apns-push-type': 'voip' })).not.toThrow();
    expectTooLarge(() => toIos({ alert: alertOfApnsBytes(5121), 'apns-push-type': 'voip' }), /5121 bytes, at most 5120$/);
  });

  it('sizes an Increment badge for the widest badge it may carry', () => {
    // `{"aps":{"badge":N,"alert":"…"}}`: 29 bytes besides the alert and N's digits.
    const alert = 'x'.repeat(4096 - 29 - 8);
    expect(() => toIos({ alert, badge: 12_345_678 })).not.toThrow();
    expect(() => toIos({ alert, badge: 'Increment' })).not.toThrow();
    expectTooLarge(() => toIos({ alert: `${alert}x`, badge: 'Increment' }), /would be 4097 bytes/);
  });

  it('refuses an FCM payload over 4096 bytes, counting the data twice (flat keys and payload)', () => {
    const data = { alert: 'a', big: 'y'.repeat(2100) };
    expect(() => toIos(data)).not.toThrow();
    expectTooLarge(() => toAndroid(data), /^data is too large for Android devices: the FCM payload would be \d+ bytes, at most 4096$/);
  });

  it('checks every platform a query can reach', () => {
    const data = { alert: 'a', big: 'y'.repeat(2100) };
    expect(() => readQueryPush({ data, where: { deviceType: 'ios' } }, context)).not.toThrow();
    expectTooLarge(() => readQueryPush({ data }, context), /too large for Android devices/);
  });

  it('is exported for requests built elsewhere', () => {
    const request = toIos({ alert: 'a' });
    expect(() => checkPayloadSize(request)).not.toThrow();
    expectTooLarge(() => checkPayloadSize({ ...request, data: { alert: alertOfApnsBytes(4097) } }), /too large for iOS devices/);
  });
});
