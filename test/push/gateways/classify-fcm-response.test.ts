import { describe, expect, it } from 'vitest';
import { classifyFcmResponse, readFcmError } from '../../../src/push/gateways/classify-fcm-response.ts';
import type { DeliveryOutcome } from '../../../src/push/gateways/delivery.ts';
import { parseRetryAfter } from '../../../src/push/gateways/retry-after.ts';

const fcmError = 'type.googleapis.com/google.firebase.fcm.v1.FcmError';
const badRequest = 'type.googleapis.com/google.rpc.BadRequest';

function errorBody(code: number, status: string, errorCode?: string, extra: unknown[] = [], message = 'error'): Buffer {
  const details = errorCode === undefined ? extra : [{ '@type': fcmError, errorCode }, ...extra];
  return Buffer.from(JSON.stringify({ error: { code, message, status, details } }));
}

describe('classifyFcmResponse', () => {
  const tokenViolation = { '@type': badRequest, fieldViolations: [{ field: 'message.token', description: 'Invalid registration token' }] };
  const dataViolation = { '@type': badRequest, fieldViolations: [{ field: 'message.data[0].value', description: 'Invalid value' }] };
  const table: [string, number, Buffer | undefined, DeliveryOutcome][] = [
    ['200', 200, Buffer.from('{"name":"projects/p/messages/1"}'), { kind: 'delivered' }],
    ['404 UNREGISTERED', 404, errorBody(404, 'NOT_FOUND', 'UNREGISTERED'), { kind: 'invalid-token', reason: 'UNREGISTERED', unregistered: true }],
    [
      '400 INVALID_ARGUMENT on the token',
      400,
      errorBody(400, 'INVALID_ARGUMENT', 'INVALID_ARGUMENT', [tokenViolation]),
      { kind: 'invalid-token', reason: 'INVALID_ARGUMENT', unregistered: false },
    ],
    [
      '400 INVALID_ARGUMENT naming the registration token in its message',
      400,
      errorBody(400, 'INVALID_ARGUMENT', 'INVALID_ARGUMENT', [], 'The registration token is not a valid FCM registration token'),
      { kind: 'invalid-token', reason: 'INVALID_ARGUMENT', unregistered: false },
    ],
    ['400 INVALID_ARGUMENT on the data', 400, errorBody(400, 'INVALID_ARGUMENT', 'INVALID_ARGUMENT', [dataViolation]), { kind: 'failed', reason: 'INVALID_ARGUMENT' }],
    ['403 SENDER_ID_MISMATCH', 403, errorBody(403, 'PERMISSION_DENIED', 'SENDER_ID_MISMATCH'), { kind: 'invalid-token', reason: 'SENDER_ID_MISMATCH', unregistered: false }],
    ['403 PERMISSION_DENIED', 403, errorBody(403, 'PERMISSION_DENIED'), { kind: 'failed', reason: 'PERMISSION_DENIED' }],
    ['429 QUOTA_EXCEEDED', 429, errorBody(429, 'RESOURCE_EXHAUSTED', 'QUOTA_EXCEEDED'), { kind: 'retry', reason: 'QUOTA_EXCEEDED' }],
    ['500 INTERNAL', 500, errorBody(500, 'INTERNAL', 'INTERNAL'), { kind: 'retry', reason: 'INTERNAL' }],
    ['503 UNAVAILABLE', 503, errorBody(503, 'UNAVAILABLE', 'UNAVAILABLE'), { kind: 'retry', reason: 'UNAVAILABLE' }],
    ['502 without a body', 502, undefined, { kind: 'retry', reason: 'Http502' }],
    ['401 THIRD_PARTY_AUTH_ERROR', 401, errorBody(401, 'UNAUTHENTICATED', 'THIRD_PARTY_AUTH_ERROR'), { kind: 'failed', reason: 'THIRD_PARTY_AUTH_ERROR' }],
    ['404 without FcmError (not a token verdict)', 404, errorBody(404, 'NOT_FOUND'), { kind: 'failed', reason: 'NOT_FOUND' }],
  ];

  it.each(table)('%s', (_name, status, body, expected) => {
    expect(classifyFcmResponse(status, readFcmError(body))).toEqual(expected);
  });

  it('carries Retry-After on retries', () => {
    expect(classifyFcmResponse(429, readFcmError(errorBody(429, 'RESOURCE_EXHAUSTED', 'QUOTA_EXCEEDED')), 30_000)).toEqual({
      kind: 'retry',
      reason: 'QUOTA_EXCEEDED',
      retryAfterMs: 30_000,
    });
  });
});

describe('parseRetryAfter', () => {
  const now = Date.parse('2026-01-12T10:00:00Z');
  it.each([
    ['120', 120_000],
    ['0', 0],
    ['Mon, 12 Jan 2026 10:00:30 GMT', 30_000],
    ['Mon, 12 Jan 2026 09:59:00 GMT', 0],
    ['soon', undefined],
    ['', undefined],
    [undefined, undefined],
  ])('%s → %s ms', (value, expected) => {
    expect(parseRetryAfter(value, now)).toBe(expected);
  });
});
