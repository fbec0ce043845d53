import { describe, expect, it } from 'vitest';
import { apnsReason, classifyApnsResponse, readApnsError } from '../../../src/push/gateways/classify-apns-response.ts';
import { reasonsBySource } from '../../../src/push/gateways/delivery-reasons.ts';
import type { DeliveryOutcome } from '../../../src/push/gateways/delivery.ts';

const body = (value: unknown): Buffer => Buffer.from(JSON.stringify(value));
const classify = (status: number, reason: string | undefined, retryAfterMs?: number): DeliveryOutcome =>
  classifyApnsResponse(status, readApnsError(reason === undefined ? undefined : body({ reason })), retryAfterMs);

/** Apple's reasons by the verdict Herald gives them, written out here rather than read from the classifier's table. */
const invalidTokens = ['BadDeviceToken', 'DeviceTokenNotForTopic'];
const unregistered = ['ExpiredToken', 'Unregistered'];
const retried = ['IdleTimeout', 'TooManyProviderTokenUpdates', 'TooManyRequests', 'InternalServerError', 'ServiceUnavailable', 'Shutdown'];
const failed = [
  'BadCollapseId',
  'BadExpirationDate',
  'BadMessageId',
  'BadPriority',
  'BadTopic',
  'DuplicateHeaders',
  'InvalidPushType',
  'MissingDeviceToken',
  'MissingTopic',
  'PayloadEmpty',
  'TopicDisallowed',
  'BadCertificate',
  'BadCertificateEnvironment',
  'ExpiredProviderToken',
  'Forbidden',
  'InvalidProviderToken',
  'MissingProviderToken',
  'UnrelatedKeyIdInToken',
  'BadEnvironmentKeyInToken',
  'BadPath',
  'MethodNotAllowed',
  'PayloadTooLarge',
  'BadRequest',
];

describe('classifyApnsResponse', () => {
  it('answers the one shared delivered outcome for 200', () => {
    expect(classify(200, undefined)).toEqual({ kind: 'delivered' });
    expect(Object.isFrozen(classify(200, undefined))).toBe(true);
  });

  it('has a verdict for every reason Apple documents, and this test names each', () => {
    expect(new Set([...invalidTokens, ...unregistered, ...retried, ...failed])).toEqual(new Set(reasonsBySource.apns));
  });

  // Each reason comes here with a status whose own verdict differs, so the reason is what decides.
  it.each(invalidTokens)('counts %s as an invalid token, kept', (reason) => {
    expect(classify(503, reason)).toEqual({ kind: 'invalid-token', reason, unregistered: false });
  });

  it.each(unregistered)('counts %s as an unregistered token', (reason) => {
    expect(classify(400, reason)).toEqual({ kind: 'invalid-token', reason, unregistered: true });
  });

  it.each(retried)('retries %s', (reason) => {
    expect(classify(400, reason)).toEqual({ kind: 'retry', reason });
  });

  it.each(failed)('fails %s', (reason) => {
    expect(classify(503, reason)).toEqual({ kind: 'failed', reason });
  });

  it.each([
    [400, { kind: 'failed', reason: 'BadRequest' }],
    [403, { kind: 'failed', reason: 'Forbidden' }],
    [404, { kind: 'failed', reason: 'BadPath' }],
    [405, { kind: 'failed', reason: 'MethodNotAllowed' }],
    [410, { kind: 'invalid-token', reason: 'Unregistered', unregistered: true }],
    [413, { kind: 'failed', reason: 'PayloadTooLarge' }],
    [429, { kind: 'retry', reason: 'TooManyRequests' }],
    [500, { kind: 'retry', reason: 'InternalServerError' }],
    [503, { kind: 'retry', reason: 'ServiceUnavailable' }],
    [502, { kind: 'retry', reason: 'Other' }],
    [418, { kind: 'failed', reason: 'Other' }],
  ] satisfies [number, DeliveryOutcome][])('names a %i without a reason by its status', (status, expected) => {
    expect(classify(status, undefined)).toEqual(expected);
  });

  it.each([
    [410, { kind: 'invalid-token', reason: 'Other', unregistered: true }],
    [429, { kind: 'retry', reason: 'Other' }],
    [500, { kind: 'retry', reason: 'Other' }],
    [503, { kind: 'retry', reason: 'Other' }],
    [599, { kind: 'retry', reason: 'Other' }],
    [499, { kind: 'failed', reason: 'Other' }],
    [400, { kind: 'failed', reason: 'Other' }],
    [403, { kind: 'failed', reason: 'Other' }],
  ] satisfies [number, DeliveryOutcome][])('judges a %i with a reason Apple does not document by its status, as Other', (status, expected) => {
    expect(classify(status, 'SomethingNew')).toEqual(expected);
  });

  it('reads a reason that differs from a documented one only in case, or is empty, as Other', () => {
    expect(classify(400, 'baddevicetoken')).toEqual({ kind: 'failed', reason: 'Other' });
    expect(classify(400, '')).toEqual({ kind: 'failed', reason: 'Other' });
    expect(classify(400, 'x'.repeat(10_000))).toEqual({ kind: 'failed', reason: 'Other' });
  });

  it('keeps the 410 timestamp as `since`, with a documented reason or without', () => {
    const timestamp = 1_704_067_200_000;
    expect(classifyApnsResponse(410, readApnsError(body({ reason: 'Unregistered', timestamp })))).toEqual({
      kind: 'invalid-token',
      reason: 'Unregistered',
      unregistered: true,
      since: timestamp,
    });
    expect(classifyApnsResponse(410, readApnsError(body({ reason: 'Gone', timestamp })))).toEqual({ kind: 'invalid-token', reason: 'Other', unregistered: true, since: timestamp });
  });

  it('passes a Retry-After delay on retries only', () => {
    expect(classify(429, 'TooManyRequests', 5000)).toEqual({ kind: 'retry', reason: 'TooManyRequests', retryAfterMs: 5000 });
    expect(classify(503, undefined, 0)).toEqual({ kind: 'retry', reason: 'ServiceUnavailable', retryAfterMs: 0 });
    expect(classify(400, 'BadTopic', 5000)).toEqual({ kind: 'failed', reason: 'BadTopic' });
    expect(classify(400, 'BadDeviceToken', 5000)).toEqual({ kind: 'invalid-token', reason: 'BadDeviceToken', unregistered: false });
    expect(classify(410, 'Unregistered', 5000)).toEqual({ kind: 'invalid-token', reason: 'Unregistered', unregistered: true });
  });
});

describe('apnsReason', () => {
  it('prefers the reason of the body to the status', () => {
    expect(apnsReason(500, readApnsError(body({ reason: 'BadTopic' })))).toBe('BadTopic');
    expect(apnsReason(500, readApnsError(undefined))).toBe('InternalServerError');
    expect(apnsReason(500, readApnsError(body({ reason: 'Oops' })))).toBe('Other');
  });
});

describe('readApnsError', () => {
  it('reads the reason and a finite timestamp', () => {
    expect(readApnsError(body({ reason: 'Unregistered', timestamp: 12 }))).toEqual({ reason: 'Unregistered', timestamp: 12 });
  });

  it.each([
    ['no body', undefined],
    ['an empty body', Buffer.alloc(0)],
    ['a body that is not JSON', Buffer.from('<html>bad gateway</html>')],
    ['JSON null', Buffer.from('null')],
    ['fields of the wrong types', body({ reason: 7, timestamp: '12' })],
  ])('reads %s as no reason and no timestamp', (_name, value) => {
    expect(readApnsError(value)).toEqual({ reason: undefined, timestamp: undefined });
  });

  it('drops a timestamp that is not finite', () => {
    expect(readApnsError(Buffer.from('{"reason":"Unregistered","timestamp":1e999}'))).toEqual({ reason: 'Unregistered', timestamp: undefined });
  });

  it('reads a body that is not JSON as no reason, judged by its status', () => {
    expect(classifyApnsResponse(503, readApnsError(Buffer.from('oops')))).toEqual({ kind: 'retry', reason: 'ServiceUnavailable' });
  });
});
