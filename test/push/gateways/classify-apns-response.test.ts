import { describe, expect, it } from 'vitest';
import { classifyApnsResponse, readApnsError } from '../../../src/push/gateways/classify-apns-response.ts';
import type { DeliveryOutcome } from '../../../src/push/gateways/delivery.ts';

const body = (value: unknown): Buffer => Buffer.from(JSON.stringify(value));

describe('classifyApnsResponse', () => {
  const table: [number, string | undefined, DeliveryOutcome][] = [
    [200, undefined, { kind: 'delivered' }],
    [400, 'BadDeviceToken', { kind: 'invalid-token', reason: 'BadDeviceToken', unregistered: false }],
    [400, 'DeviceTokenNotForTopic', { kind: 'invalid-token', reason: 'DeviceTokenNotForTopic', unregistered: false }],
    [410, 'Unregistered', { kind: 'invalid-token', reason: 'Unregistered', unregistered: true }],
    [410, 'ExpiredToken', { kind: 'invalid-token', reason: 'ExpiredToken', unregistered: true }],
    [410, undefined, { kind: 'invalid-token', reason: 'Unregistered', unregistered: true }],
    [429, 'TooManyRequests', { kind: 'retry', reason: 'TooManyRequests' }],
    [429, 'TooManyProviderTokenUpdates', { kind: 'retry', reason: 'TooManyProviderTokenUpdates' }],
    [500, 'InternalServerError', { kind: 'retry', reason: 'InternalServerError' }],
    [503, 'ServiceUnavailable', { kind: 'retry', reason: 'ServiceUnavailable' }],
    [503, 'Shutdown', { kind: 'retry', reason: 'Shutdown' }],
    [502, undefined, { kind: 'retry', reason: 'Http502' }],
    [400, 'IdleTimeout', { kind: 'retry', reason: 'IdleTimeout' }],
    [413, 'PayloadTooLarge', { kind: 'failed', reason: 'PayloadTooLarge' }],
    [400, 'BadTopic', { kind: 'failed', reason: 'BadTopic' }],
    [400, 'MissingTopic', { kind: 'failed', reason: 'MissingTopic' }],
    [400, 'TopicDisallowed', { kind: 'failed', reason: 'TopicDisallowed' }],
    [400, 'BadCollapseId', { kind: 'failed', reason: 'BadCollapseId' }],
    [400, 'PayloadEmpty', { kind: 'failed', reason: 'PayloadEmpty' }],
    [403, 'BadCertificate', { kind: 'failed', reason: 'BadCertificate' }],
    [403, 'BadCertificateEnvironment', { kind: 'failed', reason: 'BadCertificateEnvironment' }],
    [403, 'ExpiredProviderToken', { kind: 'failed', reason: 'ExpiredProviderToken' }],
    [403, 'InvalidProviderToken', { kind: 'failed', reason: 'InvalidProviderToken' }],
    [404, 'BadPath', { kind: 'failed', reason: 'BadPath' }],
    [405, 'MethodNotAllowed', { kind: 'failed', reason: 'MethodNotAllowed' }],
    [400, undefined, { kind: 'failed', reason: 'BadRequest' }],
    [418, 'SomethingNew', { kind: 'failed', reason: 'SomethingNew' }],
  ];

  it.each(table)('%i %s', (status, reason, expected) => {
    expect(classifyApnsResponse(status, readApnsError(reason === undefined ? undefined : body({ reason })))).toEqual(expected);
  });

  it('keeps the 410 timestamp as `since`', () => {
    const error = readApnsError(body({ reason: 'Unregistered', timestamp: 1_704_067_200_000 }));
    expect(classifyApnsResponse(410, error)).toEqual({ kind: 'invalid-token', reason: 'Unregistered', unregistered: true, since: 1_704_067_200_000 });
  });

  it('passes a Retry-After delay on retries only', () => {
    expect(classifyApnsResponse(429, readApnsError(body({ reason: 'TooManyRequests' })), 5000)).toEqual({
      kind: 'retry',
      reason: 'TooManyRequests',
      retryAfterMs: 5000,
    });
    expect(classifyApnsResponse(400, readApnsError(body({ reason: 'BadTopic' })), 5000)).toEqual({ kind: 'failed', reason: 'BadTopic' });
  });

  it('reads a body that is not JSON as no reason', () => {
    expect(readApnsError(Buffer.from('<html>bad gateway</html>'))).toEqual({ reason: undefined, timestamp: undefined });
    expect(classifyApnsResponse(503, readApnsError(Buffer.from('oops')))).toEqual({ kind: 'retry', reason: 'ServiceUnavailable' });
  });
});
