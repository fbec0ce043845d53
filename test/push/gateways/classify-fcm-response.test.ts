import { describe, expect, it } from 'vitest';
import { classifyFcmResponse, fcmReason, readFcmError } from '../../../src/push/gateways/classify-fcm-response.ts';
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
    ['400 UNREGISTERED (the errorCode decides)', 400, errorBody(400, 'INVALID_ARGUMENT', 'UNREGISTERED'), { kind: 'invalid-token', reason: 'UNREGISTERED', unregistered: true }],
    [
      '400 INVALID_ARGUMENT on the token',
      400,
      errorBody(400, 'INVALID_ARGUMENT', 'INVALID_ARGUMENT', [tokenViolation]),
      { kind: 'invalid-token', reason: 'INVALID_ARGUMENT', unregistered: false },
    ],
    [
      '400 INVALID_ARGUMENT naming the registration token in its message',
      400,
      errorBody(400, 'INVALID_ARGUMENT', 'INVALID_ARGUMENT', [], 'The Registration Token is not a valid FCM registration token'),
      { kind: 'invalid-token', reason: 'INVALID_ARGUMENT', unregistered: false },
    ],
    [
      '400 with only the status INVALID_ARGUMENT, on the token',
      400,
      errorBody(400, 'INVALID_ARGUMENT', undefined, [tokenViolation]),
      { kind: 'invalid-token', reason: 'INVALID_ARGUMENT', unregistered: false },
    ],
    ['400 INVALID_ARGUMENT on the data', 400, errorBody(400, 'INVALID_ARGUMENT', 'INVALID_ARGUMENT', [dataViolation]), { kind: 'failed', reason: 'INVALID_ARGUMENT' }],
    ['403 INVALID_ARGUMENT on the token (only a 400 is about the token)', 403, errorBody(403, 'INVALID_ARGUMENT', 'INVALID_ARGUMENT', [tokenViolation]), { kind: 'failed', reason: 'INVALID_ARGUMENT' }],
    ['400 FAILED_PRECONDITION naming the token', 400, errorBody(400, 'FAILED_PRECONDITION', undefined, [tokenViolation]), { kind: 'failed', reason: 'FAILED_PRECONDITION' }],
    ['403 SENDER_ID_MISMATCH', 403, errorBody(403, 'PERMISSION_DENIED', 'SENDER_ID_MISMATCH'), { kind: 'invalid-token', reason: 'SENDER_ID_MISMATCH', unregistered: false }],
    ['403 PERMISSION_DENIED', 403, errorBody(403, 'PERMISSION_DENIED'), { kind: 'failed', reason: 'PERMISSION_DENIED' }],
    ['429 QUOTA_EXCEEDED', 429, errorBody(429, 'RESOURCE_EXHAUSTED', 'QUOTA_EXCEEDED'), { kind: 'retry', reason: 'QUOTA_EXCEEDED' }],
    ['500 INTERNAL', 500, errorBody(500, 'INTERNAL', 'INTERNAL'), { kind: 'retry', reason: 'INTERNAL' }],
    ['503 UNAVAILABLE', 503, errorBody(503, 'UNAVAILABLE', 'UNAVAILABLE'), { kind: 'retry', reason: 'UNAVAILABLE' }],
    // The retry codes decide by themselves, whatever status they come with.
    ['400 QUOTA_EXCEEDED', 400, errorBody(400, 'RESOURCE_EXHAUSTED', 'QUOTA_EXCEEDED'), { kind: 'retry', reason: 'QUOTA_EXCEEDED' }],
    ['403 UNAVAILABLE', 403, errorBody(403, 'UNAVAILABLE', 'UNAVAILABLE'), { kind: 'retry', reason: 'UNAVAILABLE' }],
    ['409 INTERNAL', 409, errorBody(409, 'ABORTED', 'INTERNAL'), { kind: 'retry', reason: 'INTERNAL' }],
    ['400 with only the status UNAVAILABLE', 400, errorBody(400, 'UNAVAILABLE'), { kind: 'retry', reason: 'UNAVAILABLE' }],
    ['400 PERMISSION_DENIED', 400, errorBody(400, 'PERMISSION_DENIED'), { kind: 'failed', reason: 'PERMISSION_DENIED' }],
    ['401 THIRD_PARTY_AUTH_ERROR', 401, errorBody(401, 'UNAUTHENTICATED', 'THIRD_PARTY_AUTH_ERROR'), { kind: 'failed', reason: 'THIRD_PARTY_AUTH_ERROR' }],
    ['404 without FcmError (not a token verdict)', 404, errorBody(404, 'NOT_FOUND'), { kind: 'failed', reason: 'NOT_FOUND' }],
    // Words FCM does not document are Other, judged by the status.
    ['400 with an unknown errorCode and a known status', 400, errorBody(400, 'INVALID_ARGUMENT', 'SOMETHING_NEW', [tokenViolation]), { kind: 'failed', reason: 'Other' }],
    ['404 with an unknown status', 404, errorBody(404, 'GONE_FISHING'), { kind: 'failed', reason: 'Other' }],
    ['429 with an unknown errorCode', 429, errorBody(429, 'RESOURCE_EXHAUSTED', 'SLOW_DOWN'), { kind: 'retry', reason: 'Other' }],
    ['499 with an unknown errorCode', 499, errorBody(499, 'CANCELLED', 'WHATEVER'), { kind: 'failed', reason: 'Other' }],
    ['500 with an unknown errorCode', 500, errorBody(500, 'INTERNAL', 'OOPS'), { kind: 'retry', reason: 'Other' }],
    // Without an error body, the status alone names the reason.
    ['401 without a body', 401, undefined, { kind: 'failed', reason: 'UNAUTHENTICATED' }],
    ['403 without a body', 403, undefined, { kind: 'failed', reason: 'PERMISSION_DENIED' }],
    ['404 without a body', 404, undefined, { kind: 'failed', reason: 'NOT_FOUND' }],
    ['429 without a body', 429, undefined, { kind: 'retry', reason: 'RESOURCE_EXHAUSTED' }],
    ['500 without a body', 500, undefined, { kind: 'retry', reason: 'INTERNAL' }],
    ['501 without a body', 501, undefined, { kind: 'retry', reason: 'UNIMPLEMENTED' }],
    ['503 without a body', 503, undefined, { kind: 'retry', reason: 'UNAVAILABLE' }],
    ['504 without a body', 504, undefined, { kind: 'retry', reason: 'DEADLINE_EXCEEDED' }],
    ['502 without a body', 502, undefined, { kind: 'retry', reason: 'Other' }],
    ['400 without a body', 400, undefined, { kind: 'failed', reason: 'Other' }],
    ['502 with an HTML page from a proxy', 502, Buffer.from('<html><body>Bad gateway</body></html>'), { kind: 'retry', reason: 'Other' }],
    ['400 with a body that is not JSON', 400, Buffer.from('not json'), { kind: 'failed', reason: 'Other' }],
  ];

  it.each(table)('%s', (_name, status, body, expected) => {
    expect(classifyFcmResponse(status, readFcmError(body))).toEqual(expected);
  });

  it('carries Retry-After on retries only', () => {
    expect(classifyFcmResponse(429, readFcmError(errorBody(429, 'RESOURCE_EXHAUSTED', 'QUOTA_EXCEEDED')), 30_000)).toEqual({
      kind: 'retry',
      reason: 'QUOTA_EXCEEDED',
      retryAfterMs: 30_000,
    });
    expect(classifyFcmResponse(503, readFcmError(undefined), 0)).toEqual({ kind: 'retry', reason: 'UNAVAILABLE', retryAfterMs: 0 });
    expect(classifyFcmResponse(400, readFcmError(errorBody(400, 'INVALID_ARGUMENT')), 30_000)).toEqual({ kind: 'failed', reason: 'INVALID_ARGUMENT' });
    expect(classifyFcmResponse(404, readFcmError(errorBody(404, 'NOT_FOUND', 'UNREGISTERED')), 30_000)).toEqual({ kind: 'invalid-token', reason: 'UNREGISTERED', unregistered: true });
  });
});

describe('fcmReason', () => {
  it('prefers the errorCode to the status, and the status to the HTTP status', () => {
    expect(fcmReason(500, readFcmError(errorBody(500, 'INTERNAL', 'UNAVAILABLE')))).toBe('UNAVAILABLE');
    expect(fcmReason(500, readFcmError(errorBody(500, 'UNAVAILABLE')))).toBe('UNAVAILABLE');
    expect(fcmReason(500, readFcmError(undefined))).toBe('INTERNAL');
  });
});

describe('readFcmError', () => {
  it('reads the status, the FcmError errorCode and whether the error is about the token', () => {
    expect(readFcmError(errorBody(400, 'INVALID_ARGUMENT', 'INVALID_ARGUMENT', [tokenViolationOf('message.token')]))).toEqual({
      status: 'INVALID_ARGUMENT',
      errorCode: 'INVALID_ARGUMENT',
      aboutToken: true,
    });
  });

  it.each([
    ['no body', undefined],
    ['an empty body', Buffer.alloc(0)],
    ['a body that is not JSON', Buffer.from('<html>')],
    ['a body without error', Buffer.from('{}')],
    ['an error of the wrong types', Buffer.from(JSON.stringify({ error: { status: 3, message: 4, details: 'none' } }))],
  ])('reads %s as nothing said', (_name, body) => {
    expect(readFcmError(body)).toEqual({ status: undefined, errorCode: undefined, aboutToken: false });
  });

  it('takes an errorCode only from an FcmError detail, and only when it is a string', () => {
    const other = { '@type': 'type.googleapis.com/google.rpc.ErrorInfo', errorCode: 'UNREGISTERED' };
    const notString = { '@type': fcmError, errorCode: 7 };
    expect(readFcmError(errorBody(404, 'NOT_FOUND', undefined, [other, notString])).errorCode).toBeUndefined();
  });

  it('is about the token only for a violation of message.token, or a message naming the registration token', () => {
    expect(readFcmError(errorBody(400, 'INVALID_ARGUMENT', undefined, [tokenViolationOf('message.data')])).aboutToken).toBe(false);
    expect(readFcmError(errorBody(400, 'INVALID_ARGUMENT', undefined, [{ '@type': badRequest, fieldViolations: 'message.token' }])).aboutToken).toBe(false);
    expect(readFcmError(errorBody(400, 'INVALID_ARGUMENT', undefined, [{ '@type': fcmError, fieldViolations: [{ field: 'message.token' }] }])).aboutToken).toBe(false);
    expect(readFcmError(errorBody(400, 'INVALID_ARGUMENT', undefined, [tokenViolationOf('message.data'), tokenViolationOf('message.token')])).aboutToken).toBe(true);
    expect(readFcmError(errorBody(400, 'INVALID_ARGUMENT', undefined, [], 'the token is wrong')).aboutToken).toBe(false);
    expect(readFcmError(errorBody(400, 'INVALID_ARGUMENT', undefined, [], 'bad REGISTRATION TOKEN')).aboutToken).toBe(true);
  });
});

function tokenViolationOf(field: string): unknown {
  return { '@type': badRequest, fieldViolations: [{ field, description: 'Invalid' }] };
}

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
